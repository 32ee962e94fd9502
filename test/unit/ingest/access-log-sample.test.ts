// The real 10,000-line Apache log in /work/shared/data. The expected figures were derived from the
// file with shell tools, independently of this code:
//   L=/work/shared/data/apache_combined_semicomplete_2015.log
//   wc -l < $L                                  -> 10000 lines
//   grep -c -v '"$' $L                          -> 1 line truncated inside its user agent
//   grep '"$' $L | awk '$6=="\"GET" && (($9>=200 && $9<=299 && $9!=204 && $9!=206) || $9==304)'
//     | (drop paths, query removed, ending in a NON_PAGE_EXTENSIONS extension)  -> 3884 pageviews
//     of which status 200: 3811, 304: 73;  grep -c '"HEAD' $L -> 42
//   user agents of those 3884 matched with grep -i -E against bot|crawl|spider|slurp|archiver|feed|
//     rss|fetcher|ezooms|facebookexternalhit|wget|curl|python|libwww-perl|phantomjs|flipboardproxy|
//     bingpreview|... or empty/"-"                                -> 2249 bot pageviews, 1635 human
//   human referrer hosts (www. stripped): google.*, duckduckgo... -> 468 Search; no referrer or
//     semicomplete.com and no utm_ in the path -> 918 Direct; utm_medium=feed without referrer -> 65
//     Other; facebook/twitter/... -> 2 Social; the remaining 182 -> Referral.
// Bots now come from isbot's maintained list, which knows agents the word list above did not.
// On the 3884 pageview lines (the awk above into pv.log), grep -c for each agent that changes class:
//   chromeframe/ 74 (all from SoftLayer addresses 208.43.25x.x), Google favicon 9, LAVA.KKT35 4,
//   "Mozilla/4.0" alone 2, "Mozilla/4.0 (compatible;)" 2, AppEngine-Google 2, DTS Agent 2,
//   Google Web Preview 1, "MAXX_MAUI WAP Browser" 1, tropicdesigns (a URL in the agent) 1, Genieo 1
//     -> 99 more bots; a Chrome agent ending in " slurp" is no longer one (isbot wants Yahoo's
//     "Slurp" product token) -> 1 fewer: 2249 + 99 - 1 = 2347 bots, 1635 - 99 + 1 = 1537 humans.
//   Referrers of the 99 (awk -F'"' '{print $4}'): 98 "-" without utm_ (were Direct), 1
//     google.com/search (was Search); the 1 returning human has "-" -> Direct 918 - 98 + 1 = 821,
//     Search 468 - 1 = 467, the others unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { accessLogToRawEvent, parseAccessLogLine } from '../../../src/ingest/parse/access-log.js';
import { normalizeEvent, type NormalizeSite } from '../../../src/ingest/parse/normalize.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';
import { assignIdentities, canonicalContent } from '../../../src/ingest/parse/identity.js';

const FILE = '/work/shared/data/apache_combined_semicomplete_2015.log';
const site: NormalizeSite = { id: 'semi', hostnames: ['semicomplete.com'], collectionProfile: 'extended', profileEffectiveAt: null };

function run() {
  const lines = readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const counts = { lines: lines.length, parseErrors: 0, pageviews: 0, skipped: 0, rejected: 0, status200: 0, status304: 0, head: 0 };
  const classes = new Map<string, number>();
  const humanChannels = new Map<string, number>();
  const events = [];
  for (const line of lines) {
    const entry = parseAccessLogLine(line, 'combined');
    if ('error' in entry) {
      counts.parseErrors++;
      continue;
    }
    const r = accessLogToRawEvent(entry, site);
    if (r.kind === 'skipped') {
      counts.skipped++;
      if (r.reason === 'method HEAD') counts.head++;
      continue;
    }
    counts.pageviews++;
    if (entry.status === 200) counts.status200++;
    if (entry.status === 304) counts.status304++;
    const v = validateEventLine(r.line, { nowMs: Date.UTC(2024, 0, 1) });
    if (!v.ok) {
      counts.rejected++;
      continue;
    }
    const ev = normalizeEvent(v.event, site, 'secret');
    assert.ok(ev);
    events.push(ev);
    classes.set(ev.traffic_class, (classes.get(ev.traffic_class) ?? 0) + 1);
    if (ev.traffic_class === 'human') humanChannels.set(ev.channel, (humanChannels.get(ev.channel) ?? 0) + 1);
  }
  return { counts, classes, humanChannels, events };
}

test('the semicomplete log: lines, parse errors, pageviews and skips', () => {
  const { counts } = run();
  assert.equal(counts.lines, 10_000);
  assert.equal(counts.parseErrors, 1);
  assert.equal(counts.pageviews, 3884);
  assert.equal(counts.skipped, 9999 - 3884);
  assert.equal(counts.rejected, 0);
  assert.equal(counts.status200, 3811);
  assert.equal(counts.status304, 73);
  assert.equal(counts.head, 42);
});

test('the semicomplete log: bot pageviews are kept and classed, human channels add up', () => {
  const { classes, humanChannels, events } = run();
  assert.equal(classes.get('bot'), 2347);
  assert.equal(classes.get('human'), 1537);
  assert.equal(classes.get('ai_bot'), undefined);
  assert.deepEqual(Object.fromEntries([...humanChannels].sort()), { Direct: 821, Other: 65, Referral: 182, Search: 467, Social: 2 });
  // a real log has exact repeats (same second, key and page); they are all kept with distinct ids
  const ids = assignIdentities(events).map((e) => e.event_id);
  assert.equal(new Set(ids).size, events.length);
  // What is stored is (ip+UA key, second, path without query, referrer host, UA fields): on the
  // pageview lines, awk printing ip, time, path without query, referrer host and UA, then
  // sort | uniq -c, gives 17 lines repeating an earlier one.
  assert.equal(events.length - new Set(events.map(canonicalContent)).size, 17);
});
