// The two facts about a site's stored data that every analytics request needs before it is
// metered: its first event (availability source coverage) and its newest (freshness). They change
// only with an import, so they are remembered under the site's data version in the response cache.
import type { ResponseCache } from '../../ports/response-cache.js';
import type { AnalyticsEngine } from '../../ports/analytics-engine.js';

export interface SiteFacts {
  firstEventMs: number | null;
  newestEventMs: number | null;
}

export async function siteFacts(
  engine: AnalyticsEngine,
  siteId: string,
  memo: { cache: ResponseCache; version: string } | null,
): Promise<SiteFacts> {
  const key = memo ? JSON.stringify(['site-facts', siteId, memo.version]) : null;
  if (memo && key) {
    const hit = await memo.cache.get(key);
    if (hit) return JSON.parse(hit.body.toString('utf8')) as SiteFacts;
  }
  const [first, newest] = await Promise.all([engine.firstEventAt(siteId), engine.newestEventAt(siteId)]);
  const facts: SiteFacts = { firstEventMs: first ? first.getTime() : null, newestEventMs: newest ? newest.getTime() : null };
  if (memo && key) {
    const body = Buffer.from(JSON.stringify(facts), 'utf8');
    await memo.cache.set(key, { body, bytes: body.length });
  }
  return facts;
}
