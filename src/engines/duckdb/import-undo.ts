// Undoing an import in the DuckDB store (docs/decisions/lifecycle.md): the events that carry its id
// go, and every visitor-day they were on is rebuilt from the events it keeps, as an import rebuilds the
// visitor-days it touches (import-commit.ts): sessions sessionized again, rollups and action rows moved
// by the exact delta (the visitor-days as they were, subtracted; as they are now, added), page titles of
// the touched days computed again from what they keep (a removed event may have held a day's latest
// title). Prepared before the transaction, written in one (import-writes.ts), under the commit lock.
import type { DuckDBConnection } from '@duckdb/node-api';
import { ImportNotFoundError, type DayRef, type UndoneImport } from '../../ports/event-store.js';
import { applyImportWrites, addCopy, createImportWrites, releaseImportWrites } from './import-writes.js';
import { monthCountsSql } from './import-writes.js';
import { prepareRollupDelta } from './rollups.js';
import { snapshotBefore, storedSessionsSql } from './before-and-now.js';
import { sessionEventsSql, sessionizeSql, sessionsSql } from './sessions-sql.js';
import { STAGE_DDL } from './schema.js';
import { countRows } from './count-rows.js';
import { StatementScript } from './statement-script.js';
import { sqlString } from './sql-string.js';

/**
 * Removes the events `importId` stored first and rebuilds what they were part of, in one transaction
 * on `c` (a connection of its own: the scratch tables, named after `p`, die with it).
 */
export async function undoImport(c: DuckDBConnection, importId: string, p: string): Promise<UndoneImport> {
  const id = sqlString(importId);
  if ((await countRows(c, `imports WHERE import_id = ${id}`)) === 0) throw new ImportNotFoundError(importId);
  const v = `${p}_v`;
  await c.run(`CREATE TEMP TABLE ${v} AS SELECT DISTINCT site_id, day, visitor_key FROM events WHERE import_id = ${id}`);
  if ((await countRows(c, v)) === 0) return { importId, events: 0, days: [], bySiteMonth: [] };

  const script = new StatementScript();
  const w = createImportWrites(script, p);
  try {
    const all = `${p}_all`;
    const kept = `${p}_old`;
    const onVisitorDays = (a: string) => `${a}.site_id = v.site_id AND ${a}.day = v.day AND ${a}.visitor_key = v.visitor_key`;
    await c.run(`CREATE TEMP TABLE ${all} AS SELECT e.rowid AS rid, e.* FROM events e SEMI JOIN ${v} v ON ${onVisitorDays('e')}`);
    await c.run(`CREATE TEMP TABLE ${kept} AS SELECT * FROM ${all} WHERE import_id IS DISTINCT FROM ${id}`);
    const before = snapshotBefore(script, all, `(${storedSessionsSql(v)})`, `${p}_b`);
    await script.run(c);

    // the visitor-days as they will stand: what they keep, sessionized again (no new rows)
    const none = `${p}_none`;
    const sess = `${p}_sess`;
    const nowEvents = `${p}_ev`;
    const sessions = `${p}_sessions`;
    await c.run(STAGE_DDL(none));
    const src = { fresh: none, old: kept };
    await c.run(sessionizeSql(src, sess));
    await c.run(sessionEventsSql(src, sess, nowEvents));
    await c.run(sessionsSql(nowEvents, sessions));
    // page titles from every event the touched days keep, of every visitor
    const dayEvents = `${p}_dayev`;
    await c.run(`CREATE TEMP TABLE ${dayEvents} AS SELECT e.* FROM events e SEMI JOIN (SELECT DISTINCT site_id, day FROM ${v}) d ON e.site_id = d.site_id AND e.day = d.day
      WHERE e.type = 'pageview' AND e.page_title IS NOT NULL AND e.import_id IS DISTINCT FROM ${id}`);
    await prepareRollupDelta(
      c,
      { count: { now: { events: nowEvents, sessions }, before }, days: v, titles: { rebuild: dayEvents }, prefix: p },
      w,
      script,
    );
    await script.run(c);

    await c.run(
      `INSERT INTO ${w.updates} SELECT o.rid, x.session_id, o.engagement_time_ms FROM ${kept} o JOIN ${sess} x ON x.old AND x.rid = o.rid`,
    );
    await c.run(`INSERT INTO ${w.visitorDays} SELECT site_id, day, visitor_key FROM ${v}`);
    addCopy(w, 'sessions', `SELECT * FROM ${sessions} ORDER BY site_id, day, start_ms`, [sessions]);
    await c.run(`INSERT INTO ${w.deletes} SELECT rid FROM ${all} WHERE import_id = ${id}`);
    await c.run(`INSERT INTO ${w.counts} ${monthCountsSql(`${all} WHERE import_id = ${id}`, '-')}`);

    const bySiteMonth = (await c.runAndReadAll(`SELECT site_id, month, -events FROM ${w.counts} ORDER BY site_id, month`))
      .getRowsJS()
      .map(([site_id, month, events]) => ({ site_id: String(site_id), month: String(month), events: Number(events) }));
    const days: DayRef[] = (await c.runAndReadAll(`SELECT DISTINCT site_id, day::VARCHAR FROM ${v} ORDER BY 1, 2`))
      .getRowsJS()
      .map(([site_id, day]) => ({ site_id: String(site_id), day: String(day) }));

    await c.run('BEGIN TRANSACTION');
    try {
      await applyImportWrites(c, w);
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
    return { importId, events: bySiteMonth.reduce((n, m) => n + m.events, 0), days, bySiteMonth };
  } finally {
    await releaseImportWrites(c, w).catch(() => undefined);
  }
}
