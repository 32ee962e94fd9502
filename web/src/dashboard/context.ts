// What every panel of the dashboard is given: who reads, which site, the state from the URL, the
// parameters every read shares, and what the plan allows.
import type { DashboardRules } from '../api/manage-types.js';
import type { ReadBody } from '../api/read.js';
import type { Reader } from '../api/reader.js';
import type { Period } from './periods.js';
import type { DashboardState } from './query.js';

export interface DashboardProduct {
  /** the chart may be drawn by the hour */
  hourly: boolean;
  /** the lists and the series download as CSV */
  csv: boolean;
  /** the surfaces the plan's dashboard shows; null when the reader may not ask (an embed token) */
  surfaces: ReadonlySet<string> | null;
  /** the rules are on their way: panels of a surface not every plan has wait for them */
  pending?: boolean;
  /** the days of data the plan keeps (its dashboard's retention), when the page has the rules; null: all */
  retentionDays?: number | null;
}

/** Until the plan is known (or where it may not be read) nothing extra is offered and every panel asks. */
export const UNKNOWN_PRODUCT: DashboardProduct = { hourly: false, csv: false, surfaces: null };

/** The plan's rules are being read: what every plan has is drawn, the rest waits for them. */
export const PENDING_PRODUCT: DashboardProduct = { hourly: false, csv: false, surfaces: null, pending: true };

/** Surfaces every plan's dashboard reads (the free plan's): their panels need not wait for the rules. */
const EVERY_PLAN = new Set(['overview', 'content', 'acquisition']);

export function dashboardProduct(me: ReadBody<'/v1/me'>): DashboardProduct {
  const p = me.product;
  return { hourly: p.dashboard.hourly_enabled, csv: p.exports.csv, surfaces: new Set(p.dashboard.enabled_surfaces) };
}

/** The rules the management API gives with a site (GET /app/api/sites/{id}). */
export function rulesProduct(rules: DashboardRules): DashboardProduct {
  return { hourly: rules.hourly, csv: rules.csv, surfaces: new Set(rules.surfaces), retentionDays: rules.retention_days };
}

/** 'open': read and show it; 'closed': the plan does not include it (an upgrade note); 'pending': the rules
 * are on their way (read it already, show a skeleton until they say whether it is open). */
export function surfaceState(product: DashboardProduct, surface: string): 'open' | 'closed' | 'pending' {
  if (product.pending) return EVERY_PLAN.has(surface) ? 'open' : 'pending';
  return product.surfaces === null || product.surfaces.has(surface) ? 'open' : 'closed';
}

export interface PanelContext {
  reader: Reader;
  siteId: string;
  state: DashboardState;
  /** the period shown: two local days of the site's time zone */
  period: Period;
  /** the site's time zone, once known (given by the page or named by an answer) */
  zone: string | null;
  product: DashboardProduct;
  /** the start of CSV file names: the site and the period */
  fileStem: string;
  /** the site has collected nothing yet (the page knows it from the live count): panels say so plainly */
  nothingYet?: boolean;
}
