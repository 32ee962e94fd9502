// Current visitors of a site (the dashboard's live count): distinct visitor keys of human traffic with
// an event in the last five minutes, and the site's newest stored event (null: the site has none yet,
// which the dashboard shows as "waiting for the first event"). One QuerySpec through the engine, as
// every other number, and the site fact the freshness of every report reads. One count serves a site's
// pages for LIVE_MEMO_MS (all of them at once included).
import { TRAFFIC_FILTERS } from '../../domain/events.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import type { AnalyticsEngine } from '../../ports/analytics-engine.js';

export const LIVE_WINDOW_MS = 5 * 60_000;

export interface LiveVisitors {
  visitors: number;
  /** ISO instant of the site's newest stored event, null without any */
  last_event_at: string | null;
}

/**
 * `visitors` counts distinct keys per UTC day (docs/metrics.md): in the few minutes after midnight a
 * visitor seen on both sides of it counts twice, as the day's numbers would count them.
 */
export async function liveVisitors(engine: AnalyticsEngine, siteId: string, now: Date, timeoutMs: number): Promise<LiveVisitors> {
  const memo = memoOf(engine);
  const nowMs = now.getTime();
  const held = memo.get(siteId);
  if (held && nowMs >= held.atMs && nowMs - held.atMs < LIVE_MEMO_MS) return held.answer;
  const answer = countLive(engine, siteId, nowMs, timeoutMs);
  memo.delete(siteId);
  memo.set(siteId, { atMs: nowMs, answer });
  if (memo.size > LIVE_MEMO_SITES) memo.delete(memo.keys().next().value!);
  // a failure is not remembered, nor a site still waiting for its first event (its page asks every 5 s
  // and must turn live as soon as one is stored)
  answer.then(
    (a) => {
      if (a.last_event_at === null && memo.get(siteId)?.answer === answer) memo.delete(siteId);
    },
    () => {
      if (memo.get(siteId)?.answer === answer) memo.delete(siteId);
    },
  );
  return answer;
}

/**
 * How long one count serves every page of a site: the pages poll every 30 s, and each dashboard load
 * asks at once, so a busy site's count is read once per this many ms per process, not once per page.
 */
export const LIVE_MEMO_MS = 5_000;
const LIVE_MEMO_SITES = 10_000;

interface HeldCount {
  atMs: number;
  answer: Promise<LiveVisitors>;
}

const memos = new WeakMap<AnalyticsEngine, Map<string, HeldCount>>();

function memoOf(engine: AnalyticsEngine): Map<string, HeldCount> {
  let memo = memos.get(engine);
  if (!memo) memos.set(engine, (memo = new Map()));
  return memo;
}

async function countLive(engine: AnalyticsEngine, siteId: string, endMs: number, timeoutMs: number): Promise<LiveVisitors> {
  const spec: QuerySpec = {
    siteId,
    tenantIds: null,
    startMs: endMs - LIVE_WINDOW_MS,
    endMs,
    trafficClasses: TRAFFIC_FILTERS.humans,
    filters: {},
    metrics: ['visitors'],
  };
  const [rows, newest] = await Promise.all([engine.run(spec, { timeoutMs }), engine.newestEventAt(siteId)]);
  return { visitors: rows[0]?.values.visitors ?? 0, last_event_at: newest ? newest.toISOString() : null };
}
