// The two facts about a site's stored data that every analytics request needs before it is
// metered: its first event (availability source coverage) and its newest (freshness). They change
// only with an import, so they are remembered under the site's data version in the response cache, and
// read once however many requests of one site ask at the same time. The last facts of each site are also
// kept as they were parsed, beside the version they belong to, so a request whose version is that one
// (most requests: imports are rare) neither looks them up nor parses them.
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
  if (!memo) return readFacts(engine, siteId);
  const parsed = parsedOf(memo.cache);
  const known = parsed.get(siteId);
  if (known !== undefined && known.version === memo.version) return known.facts;
  const key = JSON.stringify(['site-facts', siteId, memo.version]);
  const hit = await memo.cache.get(key);
  if (hit) return remember(parsed, siteId, memo.version, JSON.parse(hit.body.toString('utf8')) as SiteFacts);
  // A dashboard's first load sends a dozen reads of one site at once, each missing the cache: they share
  // one read of the facts instead of each scanning the store for them.
  let pending = reading.get(key);
  if (!pending) {
    pending = readFacts(engine, siteId).then(async (facts) => {
      const body = Buffer.from(JSON.stringify(facts), 'utf8');
      await memo.cache.set(key, { body });
      return remember(parsed, siteId, memo.version, facts);
    });
    reading.set(key, pending);
    const done = () => reading.delete(key);
    pending.then(done, done);
  }
  return pending;
}

/** Sites whose last parsed facts are kept, per cache: past it the one remembered longest ago is forgotten. */
const PARSED_SITES = 4096;

type ParsedFacts = Map<string, { version: string; facts: SiteFacts }>;

/** Each response cache's last parsed facts by site (a cache, and so an app, of its own: nothing shared between them). */
const parsedByCache = new WeakMap<ResponseCache, ParsedFacts>();

function parsedOf(cache: ResponseCache): ParsedFacts {
  let parsed = parsedByCache.get(cache);
  if (parsed === undefined) parsedByCache.set(cache, (parsed = new Map()));
  return parsed;
}

function remember(parsed: ParsedFacts, siteId: string, version: string, facts: SiteFacts): SiteFacts {
  const frozen = Object.freeze({ ...facts });
  parsed.delete(siteId);
  if (parsed.size >= PARSED_SITES) parsed.delete(parsed.keys().next().value as string);
  parsed.set(siteId, { version, facts: frozen });
  return frozen;
}

/** The facts being read now, by cache key (the data version is in it): one read per site and version. */
const reading = new Map<string, Promise<SiteFacts>>();

async function readFacts(engine: AnalyticsEngine, siteId: string): Promise<SiteFacts> {
  const [first, newest] = await Promise.all([engine.firstEventAt(siteId), engine.newestEventAt(siteId)]);
  return { firstEventMs: first ? first.getTime() : null, newestEventMs: newest ? newest.getTime() : null };
}
