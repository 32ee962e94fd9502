// The actions rollup on ClickHouse (sql/write/actions-build.ts; docs/decisions/rollups.md): written by
// every day rewrite under the rewrite's generation, like the other rollups (day-rewrite.ts), and
// built at open for the committed days of a database an earlier release wrote without it.
import type { DayRef } from '../../ports/event-store.js';
import { compileActionsBuild, compileActionsInput } from '../sql/write/actions-build.js';
import { ACTION_GROUPINGS, ACTIONS_COLUMNS, type ActionLevel } from '../sql/rollup-tables.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import { clickhouseDialect } from '../sql/dialect.js';
import type { RollupSources } from '../sql/write/rollup-build.js';
import type { Shard } from './commit-log.js';
import type { ClickHouseNode } from './node.js';
import { ident, type TableLayout } from './schema.js';

/**
 * The actions rollup of `src` (the events and sessions of the days written under `gen`), as steps a
 * caller may schedule beside other work: `prepare` makes the build's input table `input` (the caller
 * drops it); each of `inserts`, once it has run, adds the rows of some grouping kinds with their day and
 * `gen`, independently of the others. One insert for small rewrites, else one per grouping kind (memory).
 */
export function actionsRollupSteps(
  n: ClickHouseNode,
  layout: TableLayout,
  src: RollupSources,
  input: string,
  gen: number,
  oneStatement: boolean,
): { prepare: () => Promise<void>; inserts: (() => Promise<void>)[] } {
  const x = compileActionsInput(clickhouseDialect, src);
  return {
    prepare: () => n.command(`CREATE TABLE ${ident(input)} ENGINE = Memory AS ${x.sql}`),
    inserts: (oneStatement ? [ALL_KINDS] : ALL_KINDS.map((k) => [k])).map(
      (kinds) => () => insertActionRows(n, layout, input, [kinds], { gen }),
    ),
  };
}

const ALL_KINDS: ActionLevel[] = ['action', 'family', 'any', 'meaningful'];

/**
 * Inserts the action rows built from the input table `input`, one statement per list of grouping
 * kinds, each row with its day and generation: one generation for all, or its (site, day)'s in the
 * table `gensTable` (site_id, day_ms, gen).
 */
async function insertActionRows(
  n: ClickHouseNode,
  layout: TableLayout,
  input: string,
  kinds: ActionLevel[][],
  from: { gen: number } | { gensTable: string },
): Promise<void> {
  const columns = [...ACTIONS_COLUMNS, 'day', 'gen'].map(ident).join(', ');
  for (const kind of kinds) {
    const b = compileActionsBuild(
      clickhouseDialect,
      ACTION_GROUPINGS.filter((g) => kind.includes(g.grp)),
      input,
      layout.trafficMasks,
    );
    const select =
      'gen' in from
        ? `SELECT *, toDate(intDiv(day_ms, 86400000)), ${lit(from.gen)} FROM (${b.sql})`
        : `SELECT ${ACTIONS_COLUMNS.map((c) => `b.${ident(c)}`).join(', ')}, toDate(intDiv(b.day_ms, 86400000)) AS b_day, g.g_gen ` +
          `FROM (${b.sql}) AS b ALL INNER JOIN (SELECT site_id AS g_site, day_ms AS g_day_ms, gen AS g_gen FROM ${ident(from.gensTable)}) AS g ON g.g_site = b.site_id AND g.g_day_ms = b.day_ms`;
    await n.command(`INSERT INTO ${ident(layout.actions)} (${columns}) ${select}`);
  }
}

/** Marks a database whose actions rollup is being built at open (a build that died is redone). */
const MARKER = 'ff_actions_backfill';

/**
 * Before the DDL: whether this server's database holds events of an earlier release without the
 * actions rollup (or a build of it that did not finish). If so, marks it and drops any partial table,
 * so that the DDL creates it empty and backfillActions fills it.
 */
export async function prepareActionsBackfill(admin: ClickHouseNode, db: string, layout: TableLayout): Promise<boolean> {
  const tables = new Set(
    (
      await admin.query<{ name: string }>(
        `SELECT name FROM system.tables WHERE database = ${lit(db)} AND name IN (${[layout.events, layout.actions, MARKER].map(lit).join(', ')})`,
      )
    ).map((r) => r.name),
  );
  if (!tables.has(layout.events) || (tables.has(layout.actions) && !tables.has(MARKER))) return false;
  await admin.command(`CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(MARKER)} (x UInt8) ENGINE = TinyLog`);
  await admin.command(`DROP TABLE IF EXISTS ${ident(db)}.${ident(layout.actions)}`);
  return true;
}

/**
 * After the DDL: the action rows of every (site, day) this server shows, under the generation the
 * authority's commit log names current for it, then the mark removed. Imports of an earlier release
 * running meanwhile write days without action rows: upgrade every process together.
 */
export async function backfillActions(server: Shard, authority: ClickHouseNode, layout: TableLayout): Promise<void> {
  const n = server.node;
  const current = await authority.query<DayRef & { gen: number }>(
    `SELECT site_id, toString(day) AS day, max(gen) AS gen FROM ${ident(layout.days)} WHERE shard = ${lit(server.num)} GROUP BY site_id, day`,
  );
  const tag = `${MARKER}_${Date.now()}`;
  const t = (kind: string) => ident(`${tag}_${kind}`);
  try {
    await n.command(`CREATE TABLE ${t('gens')} (site_id String, day Date, day_ms Int64, gen UInt64) ENGINE = Memory`);
    const gens = current.map((r) =>
      JSON.stringify({ site_id: r.site_id, day: r.day, day_ms: Date.parse(`${r.day}T00:00:00Z`), gen: Number(r.gen) }),
    );
    if (gens.length) await n.insertNdjson(t('gens'), gens.join('\n') + '\n');
    const rows = (table: string) =>
      `SELECT * FROM ${ident(table)} WHERE (site_id, day, gen) IN (SELECT site_id, day, gen FROM ${t('gens')})`;
    await n.command(`CREATE VIEW ${t('ev')} AS ${rows(layout.events)}`);
    await n.command(`CREATE VIEW ${t('se')} AS ${rows(layout.sessions)}`);
    // the generation of each row is its day's (the build groups by day, so one SELECT per generation would be wasted)
    const input = compileActionsInput(clickhouseDialect, { events: `${tag}_ev`, sessions: `${tag}_se` });
    await n.command(`CREATE TABLE ${t('in')} ENGINE = Memory AS ${input.sql}`);
    await insertActionRows(
      n,
      layout,
      `${tag}_in`,
      ALL_KINDS.map((k) => [k]),
      { gensTable: `${tag}_gens` },
    );
  } finally {
    for (const kind of ['in', 'ev', 'se', 'gens']) await n.command(`DROP TABLE IF EXISTS ${t(kind)}`).catch(() => undefined);
  }
  await n.command(`DROP TABLE IF EXISTS ${ident(MARKER)}`);
}
