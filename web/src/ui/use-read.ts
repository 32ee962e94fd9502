// A read bound to a component: started when its key changes, in a layout effect (every panel's runs in
// the same pass right after the render, before the browser lays out and paints: the page's reads leave
// together, a frame sooner than plain effects would send them). The newest answer wins, and the previous
// answer stays on screen (dimmed) while the next one loads, so the layout does not jump. An answer counts only for the
// key it was asked for: the render after a change of key already says "loading".
import { useLayoutEffect, useState } from 'preact/hooks';
import type { Result } from '../api/read.js';

export type ReadState<T> = { status: 'loading'; previous: Result<T> | null } | { status: 'done'; result: Result<T> };

export function useRead<T>(key: string | null, run: () => Promise<Result<T>>): ReadState<T> {
  const [answer, setAnswer] = useState<{ key: string; result: Result<T> } | null>(null);
  useLayoutEffect(() => {
    if (key === null) return;
    let current = true;
    run().then((result) => {
      if (current) setAnswer({ key, result });
    });
    return () => {
      current = false;
    };
  }, [key]);
  if (answer && answer.key === key) return { status: 'done', result: answer.result };
  return { status: 'loading', previous: answer?.result ?? null };
}

/** The answer to draw: the finished one, or the previous one while the next loads. */
export function shown<T>(state: ReadState<T>): Result<T> | null {
  return state.status === 'done' ? state.result : state.previous;
}
