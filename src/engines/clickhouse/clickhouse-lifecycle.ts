// Data lifecycle on ClickHouse (docs/decisions/lifecycle.md). 18.16 has no transactions and its
// deletes are mutations: asynchronous, part by part, table by table. So a purge or a site deletion
// first makes its days empty for every reader at once, then deletes the rows nobody can see:
//   1. under the commit lock, ONE insert into the authority's commit log: for each (day, server) that
//      goes, a row of a new generation with no events (no row of the store has that generation, so
//      the day shows nothing: reads, coverage, versions and imports all follow the log already), and a
//      marker of the work (`#purge/<site>` or `#delete/<site>`, commit-log.ts) in the same part;
//   2. mutations delete the rows of older generations of those days on every server, and once they
//      are done, the older log rows (a deletion then also its empty rows and its event counts);
//   3. the marker goes last. A process that dies in 2 leaves the marker: the next purge or deletion of
//      the site, or the next open of the store, finishes it. Mutations already sent finish by themselves.
// Each step leaves every day whole or empty for readers (the empty row of step 1 stays the newest
// row of its day until its older rows are gone).
import { checkedMonth, denseCounts, removedData, type EventCount, type Month, type RemovedData } from '../../ports/event-store.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { ClickHouseStoreParts } from './clickhouse-store-parts.js';
import { countsSite, DAY_MS, deletedAt, deleteSite, lifecycleRow, purgeSite, type Shard } from './commit-log.js';
import type { ClickHouseNode } from './node.js';
import { ident, LOG_LIFECYCLE_COLUMNS, PROP_COLUMNS, type TableLayout } from './schema.js';

/** One purge or deletion recorded in the log and maybe not finished: its site, kind, horizon and generation. */
interface Work {
  site: string;
  kind: 'purge' | 'delete';
  /** the purge's horizon (YYYY-MM-DD, not included) */
  beforeDay: string | null;
  gen: number;
}

/** How long finishing waits for the servers' mutations before it gives up (the next call finishes). */
const MUTATIONS_TIMEOUT_MS = 30 * 60_000;
/** A mutation's WHERE stays under 18.16's max_query_size (256 KiB) with room to spare. */
const MAX_CONDITION_CHARS = 100_000;

/** Each (day, server) of the site before `beforeDay` (every one: null) with its current generation and events. */
async function currentDays(p: ClickHouseStoreParts, site: string, beforeDay: string | null) {
  const bound = beforeDay === null ? '' : ` AND day < toDate(${lit(beforeDay)})`;
  const rows = await p.coordinator.node.query<{ d: string; shard: number; g: number; n: number }>(
    `SELECT toString(day) AS d, shard, max(gen) AS g, argMax(events, gen) AS n FROM ${ident(p.layout.days)} WHERE site_id = ${lit(site)}${bound} GROUP BY d, shard`,
  );
  return rows.map((r) => ({ day: r.d, shard: Number(r.shard), gen: Number(r.g), events: Number(r.n) }));
}

function figures(days: readonly { day: string; events: number }[]): RemovedData {
  const perDay = new Map<string, number>();
  for (const d of days) perDay.set(d.day, (perDay.get(d.day) ?? 0) + d.events);
  return removedData([...perDay].map(([day, events]) => ({ day, events })));
}

/** What removeDays would remove now. */
export async function previewRemoval(p: ClickHouseStoreParts, site: string, beforeDay: string | null): Promise<RemovedData> {
  return figures(await currentDays(p, site, beforeDay));
}

/** purgeDays (before a day) or deleteSiteData (null). */
export async function removeDays(p: ClickHouseStoreParts, site: string, beforeDay: string | null): Promise<RemovedData> {
  await finishLifecycle(p, site);
  const L = p.layout;
  const authority = p.coordinator.node;
  const kind = beforeDay === null ? 'delete' : 'purge';
  const done = await p.commitLock(async () => {
    const days = await currentDays(p, site, beforeDay);
    const live = days.filter((d) => d.events > 0);
    // a deletion gives every day of the site an empty newest row, so that its older rows (and empty rows
    // of earlier purges) can go in any order; a purge only the days it empties
    const emptied = kind === 'delete' ? days : live;
    const [counts] = await authority.query<{ n: number; g: number }>(
      `SELECT count() AS n, max(gen) AS g FROM ${ident(L.days)} WHERE site_id = ${lit(countsSite(site))}`,
    );
    if (emptied.length === 0 && (kind === 'purge' || Number(counts.n) === 0)) return { removed: figures([]), work: null, emptied };
    const gen = Math.max(Date.now() * 1000 + Math.floor(Math.random() * 1000), ...days.map((d) => d.gen + 1), Number(counts.g) + 1);
    const now = Date.now();
    const row = (d: { day: string; shard: number }) =>
      JSON.stringify({
        site_id: site,
        day: d.day,
        gen,
        shard: d.shard,
        events: 0,
        first_ms: 0,
        last_ms: 0,
        committed_ms: now,
        delta: 0,
        import_id: '',
      }) + '\n';
    const marker = lifecycleRow(kind === 'delete' ? deleteSite(site) : purgeSite(site), beforeDay ?? '1970-01-01', gen, now) + '\n';
    // the commit point of the purge or deletion: one insert, one part
    await authority.insertNdjson(ident(L.days), emptied.map(row).join('') + marker);
    const work: Work = { site, kind, beforeDay, gen };
    return { removed: figures(live), work, emptied: emptied.map((d) => ({ shard: d.shard, text: row(d) })) };
  });
  if (done.work) {
    // each other server's copy of the log gets its rows (syncedState mends a copy a dead process left short)
    await Promise.all(
      p.shards
        .filter((s) => s !== p.coordinator)
        .map(async (s) => {
          const own = done.emptied.filter((r) => r.shard === s.num).map((r) => r.text);
          if (own.length) await s.node.insertNdjson(ident(L.days), own.join('')).catch(() => undefined);
        }),
    );
    await finish(p, done.work);
  }
  return done.removed;
}

/** Finishes every purge and deletion the log records as not finished (of one site, or of all). */
export async function finishLifecycle(p: ClickHouseStoreParts, site?: string): Promise<void> {
  const which =
    site === undefined
      ? `startsWith(site_id, '#purge/') OR startsWith(site_id, '#delete/')`
      : `site_id IN (${lit(purgeSite(site))}, ${lit(deleteSite(site))})`;
  const markers = await p.coordinator.node.query<{ site_id: string; d: string; gen: number }>(
    `SELECT site_id, toString(day) AS d, gen FROM ${ident(p.layout.days)} WHERE ${which} ORDER BY gen`,
  );
  for (const m of markers) {
    const kind = m.site_id.startsWith('#purge/') ? 'purge' : 'delete';
    const s = m.site_id.slice((kind === 'purge' ? purgeSite('') : deleteSite('')).length);
    await finish(p, { site: s, kind, beforeDay: kind === 'purge' ? m.d : null, gen: Number(m.gen) });
  }
}

/** Steps 2 and 3 of the header: idempotent, so a second run after a crash finishes the first. */
async function finish(p: ClickHouseStoreParts, w: Work): Promise<void> {
  const L = p.layout;
  const authority = p.coordinator.node;
  const site = lit(w.site);
  const emptied = await authority.query<{ shard: number; d: string }>(
    `SELECT shard, toString(day) AS d FROM ${ident(L.days)} WHERE site_id = ${site} AND gen = ${lit(w.gen)} AND shard > 0`,
  );
  const daysOf = (s: Shard) => emptied.filter((r) => Number(r.shard) === s.num).map((r) => r.d);
  // the rows of older generations of the emptied days, on each server
  for (const s of p.shards) {
    for (const days of conditions(daysOf(s))) {
      const where = `site_id = ${site} AND gen < ${lit(w.gen)} AND (${days})`;
      for (const t of [L.events, L.sessions, L.rollups, L.titles, L.actions]) await deleteWhere(s, t, where);
    }
  }
  await mutationsDone(p.shards);
  // then the older log rows of those days: the authority's before the copies' (readers leave alone a
  // copy that has more rows than the authority; one with fewer they would mend from it)
  const others = p.shards.filter((s) => s !== p.coordinator);
  const older = (x: Shard, days: string) => `site_id = ${site} AND shard = ${lit(x.num)} AND gen < ${lit(w.gen)} AND (${days})`;
  for (const x of p.shards) for (const days of conditions(daysOf(x))) await deleteWhere(p.coordinator, L.days, older(x, days));
  await mutationsDone([p.coordinator]);
  for (const s of others) for (const days of conditions(daysOf(s))) await deleteWhere(s, L.days, older(s, days));
  await mutationsDone(others);
  if (w.kind === 'delete') {
    // nothing of the site is left but its empty rows, which may go in any order now; its counts before
    // the deletion stopped counting at its commit (the marker) and go too
    const rest = `site_id = ${site} AND gen <= ${lit(w.gen)}`;
    await deleteWhere(p.coordinator, L.days, rest);
    await deleteWhere(p.coordinator, L.days, `site_id = ${lit(countsSite(w.site))} AND gen < ${lit(w.gen)}`);
    await mutationsDone([p.coordinator]);
    for (const s of others) await deleteWhere(s, L.days, rest);
    await mutationsDone(others);
  }
  await deleteWhere(
    p.coordinator,
    L.days,
    `site_id = ${lit(w.kind === 'purge' ? purgeSite(w.site) : deleteSite(w.site))} AND gen = ${lit(w.gen)}`,
  );
  await mutationsDone([p.coordinator]);
}

/** The days as conditions on `day`: runs of consecutive days, OR-ed, split to keep each statement short. */
function conditions(days: readonly string[]): string[] {
  const sorted = [...new Set(days)].sort();
  const runs: [string, string][] = [];
  for (const d of sorted) {
    const last = runs[runs.length - 1];
    if (last && Date.parse(`${d}T00:00:00Z`) - Date.parse(`${last[1]}T00:00:00Z`) === DAY_MS) last[1] = d;
    else runs.push([d, d]);
  }
  const out: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const [a, b] of runs) {
    const c = a === b ? `day = toDate(${lit(a)})` : `(day >= toDate(${lit(a)}) AND day <= toDate(${lit(b)}))`;
    if (size + c.length > MAX_CONDITION_CHARS && current.length) {
      out.push(current.join(' OR '));
      current = [];
      size = 0;
    }
    current.push(c);
    size += c.length + 4;
  }
  if (current.length) out.push(current.join(' OR '));
  return out;
}

/** A mutation deleting the rows `where` selects, sent only when there are any (18.16 rewrites every part it is given). */
async function deleteWhere(s: Shard, table: string, where: string): Promise<void> {
  const [r] = await s.node.query<{ n: number }>(`SELECT count() AS n FROM ${ident(table)} WHERE ${where}`);
  if (Number(r?.n ?? 0) > 0) await s.node.command(`ALTER TABLE ${ident(table)} DELETE WHERE ${where}`);
}

/** Waits until no mutation of the store's database is running on these servers. */
async function mutationsDone(servers: readonly Shard[]): Promise<void> {
  const deadline = Date.now() + MUTATIONS_TIMEOUT_MS;
  for (const s of servers) {
    for (;;) {
      const [r] = await s.node.query<{ n: number }>(
        `SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`,
      );
      if (Number(r?.n ?? 0) === 0) break;
      if (Date.now() > deadline)
        throw new Error(
          `ClickHouse at ${s.node.opts.url} has not finished deleting the purged rows; they are gone from every read, and the next purge or deletion of the site, or the next start, finishes it`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** eventCounts: the `#events/` rows of each site since its newest deletion, summed per month (commit-log.ts). */
export async function readEventCounts(
  p: ClickHouseStoreParts,
  query: { siteIds: readonly string[]; months: readonly Month[] },
): Promise<EventCount[]> {
  const months = query.months.map(checkedMonth);
  if (query.siteIds.length === 0 || months.length === 0) return [];
  const node = p.coordinator.node;
  const cut = await deletedAt(node, p.layout.days, query.siteIds);
  const sites = query.siteIds
    .map((s) => `(site_id = ${lit(countsSite(s))}${cut.has(s) ? ` AND gen > ${lit(cut.get(s)!)}` : ''})`)
    .join(' OR ');
  const rows = await node.query<{ s: string; m: string; n: number }>(
    `SELECT site_id AS s, toString(day) AS m, sum(delta) AS n FROM ${ident(p.layout.days)} ` +
      `WHERE (${sites}) AND day IN (${months.map((m) => `toDate(${lit(`${m}-01`)})`).join(', ')}) GROUP BY s, m`,
  );
  return denseCounts(
    query,
    rows.map((r) => ({ site_id: r.s.slice(countsSite('').length), month: r.m.slice(0, 7), events: Number(r.n) })),
  );
}

/** Marks a database whose event counts are being built at open (a build that died is redone). */
const COUNTS_MARKER = 'ff_counts_backfill';
/** The import_id of the count rows a backfill wrote (so that a redone one does not count twice). */
const BACKFILL = '#backfill';

/**
 * After the DDL, on each server: the columns a database of an earlier release lacks (events.import_id;
 * the log's delta and import_id; events' custom properties, empty for every stored event). Returns
 * whether the event counts must be built (the log had no counts yet, or a build of them did not finish).
 */
export async function addLifecycleColumns(admin: ClickHouseNode, db: string, layout: TableLayout): Promise<boolean> {
  const have = await admin.query<{ table: string; name: string }>(
    `SELECT table, name FROM system.columns WHERE database = ${lit(db)} AND table IN (${lit(layout.events)}, ${lit(layout.days)})`,
  );
  const has = (table: string, column: string) => have.some((c) => c.table === table && c.name === column);
  if (!has(layout.events, 'import_id'))
    await admin.command(`ALTER TABLE ${ident(db)}.${ident(layout.events)} ADD COLUMN import_id Nullable(String)`);
  const props = PROP_COLUMNS.filter(([c]) => !has(layout.events, c));
  if (props.length)
    await admin.command(
      `ALTER TABLE ${ident(db)}.${ident(layout.events)} ${props.map(([c, t]) => `ADD COLUMN ${ident(c)} ${t}`).join(', ')}`,
    );
  const missing = LOG_LIFECYCLE_COLUMNS.filter(([c]) => !has(layout.days, c));
  if (missing.length) {
    await admin.command(`CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(COUNTS_MARKER)} (x UInt8) ENGINE = TinyLog`);
    await admin.command(
      `ALTER TABLE ${ident(db)}.${ident(layout.days)} ${missing.map(([c, t]) => `ADD COLUMN ${ident(c)} ${t}`).join(', ')}`,
    );
  }
  const [marked] = await admin.query<{ n: number }>(
    `SELECT count() AS n FROM system.tables WHERE database = ${lit(db)} AND name = ${lit(COUNTS_MARKER)}`,
  );
  return Number(marked?.n ?? 0) > 0;
}

/**
 * The event counts of a database written before them, from the log (the events of each day's current
 * generation on each server: what the store holds), in one insert, then the mark removed.
 */
export async function backfillCounts(p: ClickHouseStoreParts): Promise<void> {
  const L = p.layout;
  const node = p.coordinator.node;
  const [done] = await node.query<{ n: number }>(`SELECT count() AS n FROM ${ident(L.days)} WHERE import_id = ${lit(BACKFILL)}`);
  if (Number(done?.n ?? 0) === 0) {
    const months = await node.query<{ site_id: string; m: string; n: number }>(
      `SELECT site_id, toString(toStartOfMonth(day)) AS m, sum(n) AS n FROM (
         SELECT site_id, day, shard, argMax(events, gen) AS n FROM ${ident(L.days)} WHERE shard > 0 AND NOT startsWith(site_id, '#') GROUP BY site_id, day, shard
       ) GROUP BY site_id, m HAVING n > 0`,
    );
    const now = Date.now();
    const rows = months.map((r) =>
      JSON.stringify({
        site_id: countsSite(r.site_id),
        day: r.m,
        gen: now * 1000,
        shard: 0,
        events: 0,
        first_ms: 0,
        last_ms: 0,
        committed_ms: now,
        delta: Number(r.n),
        import_id: BACKFILL,
      }),
    );
    if (rows.length) await node.insertNdjson(ident(L.days), rows.join('\n') + '\n');
  }
  await Promise.all(p.shards.map((s) => s.node.command(`DROP TABLE IF EXISTS ${ident(COUNTS_MARKER)}`)));
}
