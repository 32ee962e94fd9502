// The body of POST /api/v2/funnel: the query API's site_id, date_range, filters, tenant_id and traffic
// (parsed by query-body.ts's own rules), and the funnel: its steps, or the id of a saved one. Checked
// whole before anything is read; every refusal is one 422 naming the field by its JSON path.
import { invalidParams } from '../errors.js';
import type { TrafficFilter } from '../events.js';
import { type FunnelStep, parseSteps } from '../funnels.js';
import { unstorableReason } from '../storable-text.js';
import { type DateRangeInput, parseDateRange } from './date-range.js';
import { parseAudience, parseFilters, parseSiteId, type QueryFilter } from './query-body.js';

export interface FunnelBody {
  /** a site id or one of its hostnames */
  siteId: string;
  dateRange: DateRangeInput;
  /** the steps given, or null when the body names a saved funnel */
  steps: FunnelStep[] | null;
  funnelId: string | null;
  filters: QueryFilter[];
  tenantId: string | null;
  traffic: TrafficFilter;
}

const KEYS = ['site_id', 'date_range', 'steps', 'funnel_id', 'filters', 'tenant_id', 'traffic'];

const fail = (field: string, message: string) => invalidParams(`${field}: ${message}`, { field });

export function parseFunnelBody(body: unknown): FunnelBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidParams('the body must be a JSON object: {"site_id", "date_range", "steps", ...}', { field: '' });
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) throw fail(unknown, `unknown field; a funnel's fields are ${KEYS.join(', ')}`);

  const siteId = parseSiteId(b.site_id);
  const dateRange = parseDateRange(b.date_range);
  const hasSteps = b.steps !== undefined && b.steps !== null;
  const hasId = b.funnel_id !== undefined && b.funnel_id !== null;
  if (hasSteps && hasId) throw fail('funnel_id', 'send steps or the funnel_id of a saved funnel, not both');
  if (!hasSteps && !hasId)
    throw fail('steps', 'is required: 2 to 8 steps such as [{"page": "/pricing"}, {"event": "Signup"}], or funnel_id of a saved funnel');
  let funnelId: string | null = null;
  if (hasId) {
    const id = b.funnel_id;
    if (typeof id !== 'string' || id.length === 0 || id.length > 100)
      throw fail('funnel_id', 'must be the id of a saved funnel (funnel_...)');
    const bad = unstorableReason(id);
    if (bad) throw fail('funnel_id', bad);
    funnelId = id;
  }
  const steps = hasSteps ? parseSteps(b.steps) : null;
  const filters = parseFilters(b.filters);
  return { siteId, dateRange, steps, funnelId, filters, ...parseAudience(b) };
}
