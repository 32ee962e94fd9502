// The API's retry guidance as a fetch wrapper: 429 waits until X-RateLimit-Reset, 500 backs off
// exponentially, 503 ANALYTICS_DB_UNAVAILABLE and CONTROL_PLANE_UNAVAILABLE wait for Retry-After;
// everything else (401, 402, 403, 404, 405, 409, 422, and 503 ANALYTICS_DB_TIMEOUT, whose same query
// would time out again) is returned at once. Every operation is a GET, so a retry can never do
// anything twice.

export interface RetryOptions {
  /** retries after the first attempt (default 3); 0 turns retrying off */
  maxRetries?: number;
  /** first backoff delay for 500 and network errors (default 500 ms), doubled each time */
  baseDelayMs?: number;
  /** ceiling of one backoff delay (default 8 s) */
  maxDelayMs?: number;
  /** a 429 or 503 asking for a longer wait than this is returned instead (default 60 s) */
  maxWaitMs?: number;
  /** for tests: the clock, the waiting, and the jitter in [0, 1) */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal | null) => Promise<void>;
  random?: () => number;
}

/** What the guidance says about one answer: return it, or ask again after some wait. */
export type RetryDecision = { retry: false } | { retry: true; waitMs: number };

/** Error codes whose status alone does not decide: 503 is retried for one of its two codes only. */
export const RETRIED_503_CODES: readonly string[] = ['ANALYTICS_DB_UNAVAILABLE', 'CONTROL_PLANE_UNAVAILABLE'];

function defaultSleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const seconds = (v: string | null): number | null => (v !== null && /^\d+$/.test(v) ? Number(v) : null);

export class RetryPolicy {
  readonly maxRetries: number;
  private readonly base: number;
  private readonly maxDelay: number;
  private readonly maxWait: number;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal | null) => Promise<void>;
  private readonly random: () => number;

  constructor(opts: RetryOptions = {}) {
    this.maxRetries = opts.maxRetries ?? 3;
    this.base = opts.baseDelayMs ?? 500;
    this.maxDelay = opts.maxDelayMs ?? 8_000;
    this.maxWait = opts.maxWaitMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? defaultSleep;
    this.random = opts.random ?? Math.random;
  }

  /** Exponential backoff with jitter: base x 2^attempt, capped, times a factor in [0.5, 1). */
  backoffMs(attempt: number): number {
    return Math.round(Math.min(this.maxDelay, this.base * 2 ** attempt) * (0.5 + this.random() / 2));
  }

  /** `code` is the envelope's error.code (read only for 503). */
  decide(status: number, headers: Headers, code: string | undefined, attempt: number): RetryDecision {
    let waitMs: number;
    if (status === 429) {
      const reset = seconds(headers.get('x-ratelimit-reset'));
      const after = seconds(headers.get('retry-after'));
      waitMs = reset !== null ? Math.max(0, reset * 1000 - this.now()) : after !== null ? after * 1000 : this.backoffMs(attempt);
    } else if (status === 500) {
      waitMs = this.backoffMs(attempt);
    } else if (status === 503 && code !== undefined && RETRIED_503_CODES.includes(code)) {
      const after = seconds(headers.get('retry-after'));
      waitMs = after !== null ? after * 1000 : this.backoffMs(attempt);
    } else {
      return { retry: false };
    }
    return waitMs <= this.maxWait ? { retry: true, waitMs } : { retry: false };
  }
}

/** The error code of a 503 body, without consuming the response the caller gets. */
async function codeOf(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } };
    return typeof body?.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

/** `fetch` that follows the guidance. The last answer (or network error) is what the caller gets. */
export function retryingFetch(inner: typeof fetch, policy: RetryPolicy): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await inner(request.clone());
      } catch (err) {
        // A dropped connection: the GET can be asked again, with the same backoff as a 500.
        if (attempt >= policy.maxRetries || request.signal.aborted) throw err;
        await policy.sleep(policy.backoffMs(attempt), request.signal);
        continue;
      }
      if (attempt >= policy.maxRetries || res.ok) return res;
      const decision = policy.decide(res.status, res.headers, res.status === 503 ? await codeOf(res) : undefined, attempt);
      if (!decision.retry) return res;
      // The answer is dropped unread: free its connection before waiting.
      await res.body?.cancel().catch(() => undefined);
      await policy.sleep(decision.waitMs, request.signal);
    }
  };
}
