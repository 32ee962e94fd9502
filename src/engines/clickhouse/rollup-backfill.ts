// A database of a release before the quarter-hour rollup rows (ff_schema version 2 or older, or none
// with events), or before the custom-property rows (3 or older): at open, each server's rows of those
// groupings are built for every (site, day) its commit log names current, under that day's generation
// (docs/decisions/query-api.md). An open that dies half-way leaves the version as it was, so the next
// one deletes what it wrote and builds them again.
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { PROP_GROUPINGS, QUARTER_GROUPING, ROLLUP_COLUMNS } from '../sql/rollup-tables.js';
import { compilePropRollupBuild } from '../sql/write/prop-rollup-build.js';
import { compileQuarterRollupBuild } from '../sql/write/quarter-rollup-build.js';
import type { CompiledBuild, RollupSources } from '../sql/write/rollup-build.js';
import type { Shard } from './commit-log.js';
import type { ClickHouseNode } from './node.js';
import { ident, type TableLayout } from './schema.js';
import { storedVersion } from './schema-version.js';

/** Groupings a release added to the rollup table: the first ff_schema version whose imports write them. */
export interface RollupBackfill {
  since: number;
  dims: readonly string[];
  build(src: RollupSources, trafficMap: string): CompiledBuild;
}

const BACKFILLS: readonly RollupBackfill[] = [
  { since: 3, dims: [QUARTER_GROUPING], build: (src, map) => compileQuarterRollupBuild(clickhouseDialect, src, map) },
  {
    since: 4,
    dims: [PROP_GROUPINGS.value, PROP_GROUPINGS.every, PROP_GROUPINGS.total],
    build: (src, map) => compilePropRollupBuild(clickhouseDialect, src.events, map),
  },
];

/** Before the DDL: the groupings `admin`'s database holds days written without. */
export async function rollupBackfills(admin: ClickHouseNode, db: string, layout: TableLayout): Promise<RollupBackfill[]> {
  const v = await storedVersion(admin, db);
  if (v !== null) return BACKFILLS.filter((b) => v < b.since);
  const [r] = await admin.query<{ n: number }>(
    `SELECT count() AS n FROM system.tables WHERE database = ${lit(db)} AND name = ${lit(layout.events)}`,
  );
  return Number(r?.n ?? 0) > 0 ? [...BACKFILLS] : [];
}

/** After the DDL, on one server: its rows of `backfills`' groupings, from the current generation of each of its days. */
export async function backfillRollups(
  server: Shard,
  authority: ClickHouseNode,
  layout: TableLayout,
  backfills: readonly RollupBackfill[],
): Promise<void> {
  if (backfills.length === 0) return;
  const n = server.node;
  const dims = `(${backfills.flatMap((b) => b.dims.map(lit)).join(', ')})`;
  // what an open that died here wrote (a mutation: waited for, so the inserts below are not deleted)
  const [stale] = await n.query<{ n: number }>(`SELECT count() AS n FROM ${ident(layout.rollups)} WHERE dim IN ${dims}`);
  if (Number(stale?.n ?? 0) > 0) {
    await n.command(`ALTER TABLE ${ident(layout.rollups)} DELETE WHERE dim IN ${dims}`);
    for (;;) {
      const [r] = await n.query<{ n: number }>(
        `SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`,
      );
      if (Number(r?.n ?? 0) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const current = await authority.query<{ site_id: string; day: string; gen: number }>(
    `SELECT site_id, toString(day) AS day, max(gen) AS gen FROM ${ident(layout.days)} WHERE shard = ${lit(server.num)} GROUP BY site_id, day`,
  );
  if (current.length === 0) return;
  const tag = `ff_rollups_backfill_${Date.now()}`;
  const t = (kind: string) => `${tag}_${kind}`;
  try {
    await n.command(`CREATE TABLE ${ident(t('gens'))} (site_id String, day Date, day_ms Int64, gen UInt64) ENGINE = Memory`);
    const gens = current.map((r) =>
      JSON.stringify({ site_id: r.site_id, day: r.day, day_ms: Date.parse(`${r.day}T00:00:00Z`), gen: Number(r.gen) }),
    );
    await n.insertNdjson(ident(t('gens')), `${gens.join('\n')}\n`);
    const rows = (table: string) =>
      `SELECT * FROM ${ident(table)} WHERE (site_id, day, gen) IN (SELECT site_id, day, gen FROM ${ident(t('gens'))})`;
    await n.command(`CREATE VIEW ${ident(t('ev'))} AS ${rows(layout.events)}`);
    await n.command(`CREATE VIEW ${ident(t('se'))} AS ${rows(layout.sessions)}`);
    const columns = [...ROLLUP_COLUMNS, 'day', 'gen'].map(ident).join(', ');
    for (const backfill of backfills) {
      const b = backfill.build({ events: t('ev'), sessions: t('se') }, layout.trafficMap);
      // each row under its day's generation
      await n.command(
        `INSERT INTO ${ident(layout.rollups)} (${columns}) SELECT ${ROLLUP_COLUMNS.map((c) => `b.${ident(c)}`).join(', ')}, ` +
          `toDate(intDiv(b.day_ms, 86400000)) AS b_day, g.g_gen FROM (${b.sql}) AS b ALL INNER JOIN ` +
          `(SELECT site_id AS g_site, day_ms AS g_day_ms, gen AS g_gen FROM ${ident(t('gens'))}) AS g ON g.g_site = b.site_id AND g.g_day_ms = b.day_ms`,
      );
    }
  } finally {
    for (const kind of ['ev', 'se', 'gens']) await n.command(`DROP TABLE IF EXISTS ${ident(t(kind))}`).catch(() => undefined);
  }
}
