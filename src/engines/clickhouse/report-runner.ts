// ReportQueryRunner over ClickHouse: the report queries (services/reports/queries) read `events` and
// `sessions`; here each of those reads becomes a read of the site's committed generation of each day
// (the commit log, as the AnalyticsEngine reads), on one server or over a cluster's Distributed tables.
//
// The compiled statement is the shared report SQL (literals, no parameters). Its site and time window
// are read back from the scope every report query starts with (ReportSql.eventScope), to look up the
// current generation of those days only; a statement without exactly one site is refused as a bug.
import { clickhouseDialect } from '../sql/dialect.js';
import type { RunOptions } from '../../ports/analytics-engine.js';
import type { CompiledReportQuery, ReportQueryRunner } from '../../services/reports/queries/report-query-runner.js';
import type { ClickHouseEngineParts } from './analytics-engine.js';
import { siteGens, type DayGen } from './commit-log.js';
import { engineError } from './node.js';
import { EVENT_COLUMNS, SESSION_COLUMNS, ident } from './schema.js';
import { DAY_MS } from './sessionize.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';

const LITERAL_RE = /'(?:[^'\\]|\\.)*'/g;
const SITE_BEFORE_RE = /\be\.`site_id` = $/;
const FROM_RE = /\be\.`ts_ms` >= (-?\d+)/g;
const TO_RE = /\be\.`ts_ms` <= (-?\d+)/g;
const TABLE_RE = /`(events|sessions)` AS ([a-z]+)\b/g;

/** The statement cut into SQL text and string literals, so nothing is ever read or rewritten inside a literal. */
function segments(sql: string): { code: string[]; literals: string[] } {
  const code: string[] = [];
  const literals: string[] = [];
  let at = 0;
  for (const m of sql.matchAll(LITERAL_RE)) {
    code.push(sql.slice(at, m.index));
    literals.push(m[0]);
    at = m.index! + m[0].length;
  }
  code.push(sql.slice(at));
  return { code, literals };
}

/** The value of a literal written by encodeClickHouseLiteral (backslash escapes). */
function decodeLiteral(l: string): string {
  return l.slice(1, -1).replace(/\\(.)/gs, '$1');
}

/** The site and the outermost time bounds of a report statement's event scope. */
export function reportScope(sql: string): { siteId: string; startMs: number; endMs: number } {
  const { code, literals } = segments(sql);
  const sites = new Set(literals.filter((_, i) => SITE_BEFORE_RE.test(code[i])).map(decodeLiteral));
  const text = code.join(' ');
  const starts = [...text.matchAll(FROM_RE)].map((m) => Number(m[1]));
  const ends = [...text.matchAll(TO_RE)].map((m) => Number(m[1]));
  if (sites.size !== 1 || !starts.length || !ends.length)
    throw new Error('a report query must scope e to one site and a time window (ReportSql.eventScope)');
  return { siteId: [...sites][0], startMs: Math.min(...starts), endMs: Math.max(...ends) };
}

const COLUMNS = new Set([...EVENT_COLUMNS, ...SESSION_COLUMNS].map(([n]) => n));
const OUTPUT_RE = /\bAS ([a-z_][a-z0-9_]*)\b/g;
const OUT = '__out';

/**
 * Replaces each `events`/`sessions` read outside the literals, and renames result columns named like
 * a table column: ClickHouse resolves `e.page_title` in WHERE to a SELECT alias `page_title` (an
 * aggregate there), where DuckDB reads the column. rows() gives the names back.
 */
function rewrite(sql: string, by: (table: 'events' | 'sessions', alias: string) => string): string {
  const { code, literals } = segments(sql);
  return code
    .map((c, i) => {
      const renamed = c.replace(OUTPUT_RE, (m, name: string) => (COLUMNS.has(name) ? `AS ${name}${OUT}` : m));
      return renamed.replace(TABLE_RE, (_m, t: 'events' | 'sessions', a: string) => by(t, a)) + (literals[i] ?? '');
    })
    .join('');
}

function restoreNames(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.endsWith(OUT) ? k.slice(0, -OUT.length) : k] = v;
  return out;
}

export function clickhouseReportRunner(p: ClickHouseEngineParts): ReportQueryRunner {
  const L = p.layout;
  /** The committed rows of one table for the site and days, as a subquery. */
  const visible = (table: 'events' | 'sessions', siteId: string, gens: readonly DayGen[]) => {
    const name = table === 'events' ? L.events : L.sessions;
    const filter = gens.length ? `(day, gen) IN (${gens.map((g) => `(${lit(g.day)}, ${lit(g.gen)})`).join(', ')})` : '0 = 1';
    return `(SELECT * FROM ${ident(name)} WHERE site_id = ${lit(siteId)} AND ${filter})`;
  };
  return {
    dialect: clickhouseDialect,
    async rows(query: CompiledReportQuery, options: RunOptions) {
      const scope = reportScope(query.sql);
      const ac = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ac.abort();
      }, options.timeoutMs);
      const settings = { max_execution_time: Math.max(1, Math.ceil(options.timeoutMs / 1000)) };
      try {
        // a session joined to an event of the window may have started the day before it
        const gens = await siteGens(p.coordinator, L.days, scope.siteId, scope.startMs - DAY_MS, scope.endMs + DAY_MS, {
          settings,
          signal: ac.signal,
        });
        // Subqueries, not the tables themselves: 18.16 loses the aliases of a join over Distributed tables.
        const sql = rewrite(query.sql, (table, alias) => `${visible(table, scope.siteId, gens)} AS ${alias}`);
        return (await p.coordinator.query<Record<string, unknown>>(sql, { settings, signal: ac.signal })).map(restoreNames);
      } catch (e) {
        throw engineError(e, timedOut);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
