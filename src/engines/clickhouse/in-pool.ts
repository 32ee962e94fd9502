// A day rewrite's build statements (day-rewrite.ts) run a few at a time, and the inputs several of them
// wait for are built once.

/** `f` run once, at its first call; every call gets that run's promise. */
export function once(f: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | null = null;
  return () => (p ??= f());
}

/**
 * Runs `tasks`, at most `width` at a time. After a failure no task starts; a failure is thrown once
 * the started ones have ended (the caller's cleanup must not race them).
 */
export async function inPool(width: number, tasks: readonly (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < tasks.length) {
      try {
        await tasks[next++]();
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(width, tasks.length) }, lane));
  const first = lanes.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (first) throw first.reason;
}
