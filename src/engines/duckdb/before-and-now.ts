// An import's rollup delta counts the visitor-days it touches twice: as they were stored (subtracted)
// and as they are after it (added; day-delta.ts). Each count is a build of about 60 statements whose
// cost hardly depends on the rows: two builds were most of a small commit (a live collection load).
// So both are counted in ONE build: the rows of each half carry a tag
// before their site id ('b' before, 'n' now), and before their session id, so that nothing of one
// half meets the other (every rollup and action row is grouped by site; sessions are joined on their
// id). The tag is one character on every row, so untagging never depends on what a site id holds.
import type { RollupSources } from '../sql/write/rollup-build.js';
import { SESSION_EVENT_COLUMNS } from './sessions-sql.js';
import type { StatementScript } from './statement-script.js';

const BEFORE = 'b';
const NOW = 'n';
/** The event columns a build reads besides site_id and session_id (which come first, tagged). */
const OTHER_COLUMNS = SESSION_EVENT_COLUMNS.filter((col) => col !== 'site_id').join(', ');
const tagged = (tag: string) => `'${tag}' || site_id AS site_id, '${tag}' || session_id AS session_id`;

/**
 * The select-list items (or REPLACE items) that tag a row of either half: its site_id and session_id,
 * for rows that carry both columns under those names.
 */
export const TAG_COLUMNS = { before: tagged(BEFORE), now: tagged(NOW) } as const;

/** A tagged build's before-rows: `site_id` of a row of the rollups or the action rows (SQL). */
export const isBeforeRow = (site: string) => `starts_with(${site}, '${BEFORE}')`;
/** The site id of a tagged build's row (SQL). */
export const untaggedSite = (site: string) => `substr(${site}, 2)`;

/** The stored sessions of the visitor-days in `visitorDays` (site_id, day, visitor_key), as a SELECT. */
export const storedSessionsSql = (visitorDays: string) =>
  `SELECT s.* FROM sessions s SEMI JOIN ${visitorDays} v ON s.site_id = v.site_id AND s.day = v.day AND s.visitor_key = v.visitor_key`;

/**
 * Copies the stored events of some visitor-days held by `events` (events columns), and their stored
 * sessions held by `sessions` (a table, or a parenthesized storedSessionsSql), as they are now (an
 * import may change its copy of the events afterwards: `script` runs before it does), tagged as the
 * before half. The tables are `prefix`_ev and _sess; the statements go to `script`.
 */
export function snapshotBefore(script: StatementScript, events: string, sessions: string, prefix: string): RollupSources {
  const out = { events: `${prefix}_ev`, sessions: `${prefix}_sess` };
  script.add(`CREATE TEMP TABLE ${out.events} AS SELECT ${tagged(BEFORE)}, ${OTHER_COLUMNS} FROM ${events}`);
  script.add(`CREATE TEMP TABLE ${out.sessions} AS SELECT * REPLACE (${tagged(BEFORE)}) FROM ${sessions}`);
  return out;
}

/**
 * Views of `before` (snapshotBefore's) and `now` (events with SESSION_EVENT_COLUMNS and session_id;
 * sessions in the sessions table's layout) together, `now` tagged as such: one build reads them.
 * The caller drops them with dropViews(). Both add to `script`.
 */
export function beforeAndNow(script: StatementScript, before: RollupSources, now: RollupSources, prefix: string): RollupSources {
  const out = { events: `${prefix}_bnev`, sessions: `${prefix}_bnsess` };
  script.add(`CREATE TEMP VIEW ${out.events} AS SELECT * FROM ${before.events}
    UNION ALL SELECT ${tagged(NOW)}, ${OTHER_COLUMNS} FROM ${now.events}`);
  script.add(`CREATE TEMP VIEW ${out.sessions} AS SELECT * FROM ${before.sessions}
    UNION ALL SELECT * REPLACE (${tagged(NOW)}) FROM ${now.sessions}`);
  return out;
}

export function dropViews(script: StatementScript, views: RollupSources): void {
  script.add(`DROP VIEW IF EXISTS ${views.events}`);
  script.add(`DROP VIEW IF EXISTS ${views.sessions}`);
}

/**
 * Views of every event and session of the days in `days` (site_id, day) as they will stand: those of
 * the touched visitor-days (`visitorDays`) from `now` (events with SESSION_EVENT_COLUMNS and
 * session_id; sessions in the sessions table's layout), the rest as stored. A build of them counts
 * the days whole (prepareRollupDelta's `wholeDays`). The caller drops them with dropViews().
 */
export function wholeDaysOf(
  script: StatementScript,
  now: RollupSources,
  t: { days: string; visitorDays: string },
  prefix: string,
): RollupSources {
  const out = { events: `${prefix}_wdev`, sessions: `${prefix}_wdsess` };
  const untouched = (alias: string) => `SEMI JOIN ${t.days} d ON ${alias}.site_id = d.site_id AND ${alias}.day = d.day
    ANTI JOIN ${t.visitorDays} v ON ${alias}.site_id = v.site_id AND ${alias}.day = v.day AND ${alias}.visitor_key = v.visitor_key`;
  const cols = (alias: string) => [...SESSION_EVENT_COLUMNS, 'session_id'].map((c) => `${alias}.${c}`).join(', ');
  script.add(`CREATE TEMP VIEW ${out.events} AS SELECT ${cols('n')} FROM ${now.events} n
    UNION ALL SELECT ${cols('e')} FROM events e ${untouched('e')}`);
  script.add(`CREATE TEMP VIEW ${out.sessions} AS SELECT * FROM ${now.sessions}
    UNION ALL SELECT s.* FROM sessions s ${untouched('s')}`);
  return out;
}
