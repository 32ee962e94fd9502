// Engagement an import brings (EngagementRow: a page's time reported after its pageview), applied to
// the pageviews it is for, before the touched visitor-days are sessionized and counted: both the
// general commit (import-commit.ts) and an append (append-load.ts) apply it the same way.
import type { DuckDBConnection } from '@duckdb/node-api';
import { MAX_ENGAGEMENT_MS } from '../../domain/events.js';
import type { StatementScript } from './statement-script.js';

/**
 * Adds each engagement row's time to the visitor's latest pageview of its path at or before its
 * time that day, among the new rows and the stored ones (EngagementRow); the temp tables change in
 * place (statements added to `script`) and the commit writes the stored rows back.
 */
export async function applyEngagement(
  c: DuckDBConnection,
  script: StatementScript,
  fresh: string,
  old: string | null,
  eng: string,
  p: string,
): Promise<{ applied: number; dropped: number }> {
  const cols = 'site_id, day, visitor_key, path_canon, ts_ms, event_id';
  const candidates = `SELECT false AS old, rowid AS rid, ${cols} FROM ${fresh} WHERE type = 'pageview'
    ${old ? `UNION ALL SELECT true AS old, rid, ${cols} FROM ${old} WHERE type = 'pageview'` : ''}`;
  const adds = `${p}_adds`;
  script.add(`CREATE TEMP TABLE ${adds} AS
    SELECT t.old, t.rid, sum(m.engagement_ms) AS add_ms, count(*) AS n FROM (
      SELECT e.rowid AS erid, any_value(e.engagement_ms) AS engagement_ms,
        arg_max(struct_pack(old := c.old, rid := c.rid), (c.ts_ms, c.event_id)) AS t
      FROM ${eng} e JOIN (${candidates}) c
        ON c.site_id = e.site_id AND c.day = e.day AND c.visitor_key = e.visitor_key AND c.path_canon = e.path_canon AND c.ts_ms <= e.ts_ms
      GROUP BY e.rowid
    ) m GROUP BY t.old, t.rid`);
  const [applied, total] = (await script.read(c, `SELECT (SELECT coalesce(sum(n), 0) FROM ${adds}), (SELECT count(*) FROM ${eng})`))[0].map(
    Number,
  );
  const set = `engagement_time_ms = least(engagement_time_ms + a.add_ms, ${MAX_ENGAGEMENT_MS})`;
  script.add(`UPDATE ${fresh} SET ${set} FROM ${adds} a WHERE NOT a.old AND ${fresh}.rowid = a.rid`);
  if (old) script.add(`UPDATE ${old} SET ${set} FROM ${adds} a WHERE a.old AND ${old}.rid = a.rid`);
  script.add(`DROP TABLE ${adds}`);
  return { applied, dropped: total - applied };
}
