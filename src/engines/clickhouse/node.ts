// One ClickHouse server over HTTP (@clickhouse/client), restricted to what 18.16 understands:
// no query parameters (values are literals from sql/clickhouse-literal.ts), JSONEachRow in and out
// (TabSeparated in for staged event rows),
// 64-bit integers as JSON numbers.
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { EngineError } from '../../domain/errors.js';

export const BASE_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 0 };

export interface NodeOptions {
  url: string;
  database: string;
  username: string;
  password: string;
  /** HTTP request timeout; queries with their own timeout get that plus a margin */
  requestTimeoutMs?: number;
}

export interface QueryOptions {
  settings?: ClickHouseSettings;
  signal?: AbortSignal;
}

export class ClickHouseNode {
  private readonly client: ClickHouseClient;
  /** SELECTs sent so far (benches count the statements a request costs) */
  queries = 0;
  constructor(readonly opts: NodeOptions) {
    this.client = createClient({
      url: opts.url,
      username: opts.username,
      password: opts.password,
      database: opts.database,
      request_timeout: opts.requestTimeoutMs ?? 300_000,
      clickhouse_settings: BASE_SETTINGS,
      // failures reach the caller as errors; the client's own logging would only repeat them on stderr
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  /** A statement without a result (DDL, INSERT ... SELECT, ALTER). */
  async command(sql: string, settings: ClickHouseSettings = {}): Promise<void> {
    await this.client.command({ query: sql, clickhouse_settings: settings });
  }

  /** Rows of a SELECT (no FORMAT clause: the client appends JSONEachRow). */
  async query<T = Record<string, unknown>>(sql: string, opts: QueryOptions = {}): Promise<T[]> {
    this.queries++;
    const rs = await this.client.query({
      query: sql,
      format: 'JSONEachRow',
      clickhouse_settings: opts.settings,
      abort_signal: opts.signal,
    });
    return rs.json<T>();
  }

  /** Inserts NDJSON text whose objects carry the table's column names. */
  async insertNdjson(table: string, ndjson: string, settings: ClickHouseSettings = {}): Promise<void> {
    if (ndjson === '') return;
    // exec sends the text as it is (insert() would encode each chunk again as a JSON value)
    const r = await this.client.exec({
      query: `INSERT INTO ${table} FORMAT JSONEachRow`,
      values: Readable.from([Buffer.from(ndjson)]),
      clickhouse_settings: settings,
    });
    r.stream.destroy();
  }

  /** Inserts TabSeparated text whose fields are `columns` (a parenthesized list) in order. */
  async insertTabSeparated(table: string, columns: string, tsv: string, settings: ClickHouseSettings = {}): Promise<void> {
    if (tsv === '') return;
    const r = await this.client.exec({
      query: `INSERT INTO ${table} ${columns} FORMAT TabSeparated`,
      values: Readable.from([Buffer.from(tsv)]),
      clickhouse_settings: settings,
    });
    r.stream.destroy();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** ClickHouse error codes that mean the SQL itself is wrong: a bug (500), not a store fault (503). */
const QUERY_BUG_CODES = new Set(['16', '43', '46', '47', '53', '62', '174', '179', '184', '215', '386']);
const TIMEOUT_CODES = new Set(['159', '209', '394']);

export function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return code;
  // 18.16 words its errors "Code: N, e.displayText() = ...", which the client does not parse
  return /^Code: (\d+)/.exec(String((e as Error)?.message ?? ''))?.[1];
}

/** Maps a failure of a read to the engine's error kinds; SQL bugs are rethrown as they are. */
export function engineError(e: unknown, timedOut: boolean): Error {
  const code = errorCode(e);
  if (timedOut || (code && TIMEOUT_CODES.has(code))) return new EngineError('timeout', e);
  if (code && QUERY_BUG_CODES.has(code)) return e instanceof Error ? e : new Error(String(e));
  return new EngineError('unavailable', e);
}
