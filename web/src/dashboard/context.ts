// What every panel of the dashboard is given: who reads, which site, the state from the URL, the
// parameters every read shares, and what the plan allows.
import type { ReadBody } from '../api/read.js';
import type { Reader } from '../api/reader.js';
import type { CommonParams, DashboardState } from './query.js';

export interface DashboardProduct {
  /** the chart may be drawn by the hour */
  hourly: boolean;
  /** the lists and the series download as CSV */
  csv: boolean;
  /** the surfaces the plan's dashboard shows; null when the reader may not ask (an embed token) */
  surfaces: ReadonlySet<string> | null;
}

/** Until the plan is known (or where it may not be read) nothing extra is offered and every panel asks. */
export const UNKNOWN_PRODUCT: DashboardProduct = { hourly: false, csv: false, surfaces: null };

export function dashboardProduct(me: ReadBody<'/v1/me'>): DashboardProduct {
  const p = me.product;
  return { hourly: p.dashboard.hourly_enabled, csv: p.exports.csv, surfaces: new Set(p.dashboard.enabled_surfaces) };
}

export function surfaceEnabled(product: DashboardProduct, surface: string): boolean {
  return product.surfaces === null || product.surfaces.has(surface);
}

export interface PanelContext {
  reader: Reader;
  siteId: string;
  state: DashboardState;
  params: CommonParams;
  product: DashboardProduct;
  /** the start of CSV file names: the site and the period */
  fileStem: string;
}
