// The metrics routes' answer in the representation the request negotiated (negotiate.ts): the report
// envelope, or the payload as CSV, an attachment named <site>-<name>-<from>-<to>.csv after the resolved range.
import { csvRendering } from '../../services/analytics/rendering.js';
import {
  serveAnalytics,
  serveAnalyticsAs,
  type AnalyticsContext,
  type ServeAnalyticsRequest,
} from '../../services/analytics/serve-analytics.js';
import { RawCsv, RawJson } from '../pipeline/define-route.js';
import type { Format } from '../pipeline/negotiate.js';

export interface CsvOf<P> {
  /** the file name's middle part, e.g. the metric */
  name: string;
  table(data: { current: P; compare: P | null }): string;
}

export async function metricsAnswer<P>(
  ctx: AnalyticsContext & { format: Format },
  req: ServeAnalyticsRequest<P>,
  csv: CsvOf<P>,
): Promise<RawJson | RawCsv> {
  if (ctx.format === 'json') return new RawJson(await serveAnalytics(ctx, req));
  const { body, range } = await serveAnalyticsAs(ctx, req, csvRendering(csv.table));
  return new RawCsv(body, `${ctx.site!.id}-${csv.name}-${range.current.from}-${range.current.to}.csv`);
}
