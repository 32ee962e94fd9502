// Exact sliding log shared by every API process: one sorted set per key in Redis (score = hit time in
// ms), checked and updated by one server-side Lua script, so two processes can never both take the last slot.
import { createHash, randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import type { RateDecision, RateLimiter } from '../ports/rate-limiter.js';

/**
 * KEYS[1] the key's log. ARGV: limit, cutoff (hits at or before it have left the window), now, window,
 * member (unique per hit), ttl ms. Returns {allowed 0|1, hits in the window after this one, reset second}.
 * Lua numbers are doubles: millisecond times are exact in them for the next quarter-million years.
 */
export const SLIDING_LOG_SCRIPT = `
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[5])
  count = count + 1
  allowed = 1
end
local reset = now
if count > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  reset = tonumber(oldest[2]) + window
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
return {allowed, count, math.ceil(reset / 1000)}
`;

const SCRIPT_SHA = createHash('sha1').update(SLIDING_LOG_SCRIPT).digest('hex');

/**
 * A log outlives its newest hit by the window plus this much, so that processes whose clocks run behind
 * the one that recorded it still find it; only idle keys pay for the extra minute.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 60_000;

/** The few node-redis calls the limiter uses, so a test (or another client) can stand in. */
export interface RedisScripting {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export interface RedisRateLimiterOptions {
  /** Prepended to every key, so one Redis can serve several deployments; default "footfall:rl:". */
  keyPrefix?: string;
  /** Called by close(). */
  onClose?: () => Promise<void>;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;
  private readonly onClose: () => Promise<void>;
  // Members must be unique per hit (a sorted set keeps one of equal members): this process's tag and a counter.
  private readonly tag = randomBytes(6).toString('hex');
  private seq = 0;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisScripting,
    opts: RedisRateLimiterOptions = {},
  ) {
    this.prefix = opts.keyPrefix ?? 'footfall:rl:';
    this.onClose = opts.onClose ?? (async () => {});
  }

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    if (typeof key !== 'string' || key === '') throw new RangeError('rate-limit key must be a non-empty string');
    checkInt('rate limit', limit, 0);
    checkInt('rate-limit window', windowMs, 1);
    checkInt('rate-limit time', nowMs, 0);
    const args = [
      String(limit),
      String(nowMs - windowMs),
      String(nowMs),
      String(windowMs),
      `${nowMs}:${this.tag}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`,
      String(windowMs + CLOCK_SKEW_ALLOWANCE_MS),
    ];
    const reply = await this.run([this.prefix + key], args);
    if (!Array.isArray(reply) || reply.length !== 3 || !reply.every((n) => typeof n === 'number'))
      throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
    const [allowed, count, resetUnix] = reply as number[];
    return { allowed: allowed === 1, limit, remaining: allowed === 1 ? Math.max(0, limit - count) : 0, resetUnix };
  }

  /** EVALSHA first (the script is not resent on every hit); EVAL loads it after a restart or flush. */
  private async run(keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.redis.evalSha(SCRIPT_SHA, { keys, arguments: args });
    } catch (err) {
      if (!/NOSCRIPT/.test(String((err as Error)?.message))) throw err;
      return this.redis.eval(SLIDING_LOG_SCRIPT, { keys, arguments: args });
    }
  }

  async close(): Promise<void> {
    await (this.closing ??= this.onClose());
  }
}

function checkInt(what: string, n: unknown, min: number): void {
  if (!Number.isSafeInteger(n) || (n as number) < min) throw new RangeError(`${what} must be an integer >= ${min}, got ${String(n)}`);
}

/** How many times the first connection is tried before opening fails (later drops retry forever). */
const FIRST_CONNECT_ATTEMPTS = 5;

export class RateLimiterUnavailableError extends Error {
  readonly code = 'RATE_LIMITER_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateLimiterUnavailableError';
  }
}

/**
 * Connects to Redis at `url` and returns a limiter that owns the connection (close() ends it).
 * While Redis is unreachable, hits fail at once instead of queueing, so requests are answered rather
 * than held; `onError` hears about connection trouble (default: ignored, the failing hits report it).
 */
export async function openRedisRateLimiter(
  url: string,
  opts: { keyPrefix?: string; onError?: (err: Error) => void } = {},
): Promise<RedisRateLimiter> {
  let connected = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: (retries, cause) => (!connected && retries >= FIRST_CONNECT_ATTEMPTS ? cause : Math.min(50 * 2 ** retries, 2_000)),
    },
  });
  client.on('error', (err: Error) => opts.onError?.(err));
  try {
    await client.connect();
    connected = true;
  } catch (err) {
    // A failed first connection may already have closed the client.
    if (client.isOpen) client.destroy();
    throw new RateLimiterUnavailableError(`cannot reach Redis at ${url.replace(/\/\/([^@/]*)@/, '//***@')}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return new RedisRateLimiter(client, {
    keyPrefix: opts.keyPrefix,
    onClose: async () => {
      if (client.isOpen) await client.close();
    },
  });
}
