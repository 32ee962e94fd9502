// Data lifecycle in the DuckDB store (docs/decisions/lifecycle.md): purging the days before a horizon
// and deleting a site are one transaction of deletes over every table keyed by (site, day), so a crash
// (DuckDB writes a transaction to its log at commit) or a read meanwhile sees every day whole or gone.
// Event counts per (site, month) live in event_counts, moved by the transaction that stores or removes
// events (import-writes.ts); a purge leaves them, a site deletion removes them. The columns and tables
// a store of the release before this one lacks are added at open, and its counts built from its events.
import type { DuckDBConnection } from '@duckdb/node-api';
import { checkedMonth, denseCounts, removedData, type EventCount, type Month, type RemovedData } from '../../ports/event-store.js';
import { ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../sql/rollup-tables.js';
import { duckdbDialect } from '../sql/dialect.js';
import { monthCountsSql } from './import-writes.js';
import { EVENT_COUNTS_DDL, IMPORTS_DDL, PROP_COLUMNS_DDL } from './schema.js';

const q = duckdbDialect.quoteIdent;
/** footfall_meta key marking event_counts as built from the events (the version of its rules) */
const COUNTS_KEY = 'event_counts_version';
const COUNTS_VERSION = '1';

type Reader = Pick<DuckDBConnection, 'runAndReadAll'>;

/**
 * At open: events get their import_id and custom property columns, event_counts and imports their tables;
 * a store whose counts were never built (the release before them) counts its events once, in one
 * transaction with the mark, so the counts exist whole or not at all.
 */
export async function ensureLifecycleTables(c: DuckDBConnection): Promise<void> {
  await c.run('ALTER TABLE events ADD COLUMN IF NOT EXISTS import_id VARCHAR');
  await ensurePropColumns(c);
  await c.run(EVENT_COUNTS_DDL);
  await c.run(IMPORTS_DDL);
  const built = (await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = '${COUNTS_KEY}'`)).getRowsJS()[0]?.[0];
  if (built === COUNTS_VERSION) return;
  await c.run('BEGIN TRANSACTION');
  try {
    await c.run('DELETE FROM event_counts');
    await c.run(`INSERT INTO event_counts ${monthCountsSql('events')}`);
    await c.run(
      `INSERT INTO footfall_meta VALUES ('${COUNTS_KEY}', '${COUNTS_VERSION}') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * The custom property columns of a store of the release before them, as a new store has them: added with
 * their default (every stored event: no props), then made NOT NULL. Looks at what the store has, so a
 * crash between the two steps is finished by the next open.
 */
async function ensurePropColumns(c: DuckDBConnection): Promise<void> {
  for (const ddl of PROP_COLUMNS_DDL) await c.run(`ALTER TABLE events ADD COLUMN IF NOT EXISTS ${ddl.replace(' NOT NULL', '')}`);
  const nullable = (
    await c.runAndReadAll(
      `SELECT column_name FROM duckdb_columns() WHERE table_name = 'events' AND schema_name = 'main' AND database_name = current_database()
        AND column_name IN ('prop_keys', 'prop_values') AND is_nullable`,
    )
  ).getRowsJS();
  for (const [column] of nullable) await c.run(`ALTER TABLE events ALTER COLUMN ${String(column)} SET NOT NULL`);
}

/** The site's stored days before `beforeDay` (every day with null), with their events. */
export async function removedDays(c: Reader, siteId: string, beforeDay: string | null): Promise<RemovedData> {
  const bound = beforeDay === null ? '' : ' AND day < CAST(? AS DATE)';
  const rows = (
    await c.runAndReadAll(
      `SELECT day::VARCHAR, count(*) FROM events WHERE site_id = ?${bound} GROUP BY day`,
      beforeDay === null ? [siteId] : [siteId, beforeDay],
    )
  ).getRowsJS();
  return removedData(rows.map(([day, n]) => ({ day: String(day), events: Number(n) })));
}

/**
 * Deletes the site's rows of the days before `beforeDay` (null: every day, and its event counts) from
 * every table, in one transaction. Returns what went.
 */
export async function deleteDays(c: DuckDBConnection, siteId: string, beforeDay: string | null): Promise<RemovedData> {
  const removed = await removedDays(c, siteId, beforeDay);
  if (removed.days === 0 && beforeDay !== null) return removed;
  const dayMs = beforeDay === null ? null : Date.parse(`${beforeDay}T00:00:00Z`);
  const where = (dayCol: 'day' | 'day_ms') =>
    `site_id = ?${beforeDay === null ? '' : dayCol === 'day' ? ' AND day < CAST(? AS DATE)' : ` AND day_ms < ${dayMs}`}`;
  const params = (dayCol: 'day' | 'day_ms') => (beforeDay === null || dayCol === 'day_ms' ? [siteId] : [siteId, beforeDay]);
  await c.run('BEGIN TRANSACTION');
  try {
    for (const t of ['events', 'sessions']) await c.run(`DELETE FROM ${t} WHERE ${where('day')}`, params('day'));
    for (const t of [ROLLUP_TABLE, PAGE_TITLES_TABLE, ACTIONS_TABLE])
      await c.run(`DELETE FROM ${q(t)} WHERE ${where('day_ms')}`, params('day_ms'));
    // usage history stays through a purge; a deleted site has none
    if (beforeDay === null) await c.run('DELETE FROM event_counts WHERE site_id = ?', [siteId]);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return removed;
}

/** eventCounts from event_counts: one lookup of its keys. */
export async function readEventCounts(c: Reader, query: { siteIds: readonly string[]; months: readonly Month[] }): Promise<EventCount[]> {
  const months = query.months.map(checkedMonth);
  if (query.siteIds.length === 0 || months.length === 0) return [];
  const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const rows = (
    await c.runAndReadAll(
      `SELECT site_id, month, events FROM event_counts WHERE site_id IN (${list(query.siteIds.length)}) AND month IN (${list(months.length)})`,
      [...query.siteIds, ...months],
    )
  ).getRowsJS();
  return denseCounts(
    query,
    rows.map(([site_id, month, events]) => ({ site_id: String(site_id), month: String(month), events: Number(events) })),
  );
}
