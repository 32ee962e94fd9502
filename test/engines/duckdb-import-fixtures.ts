// Many plausible stored rows, fast and deterministic, for tests of the DuckDB import itself (order,
// size, limits): EventRows made directly, without the line processor.
import { createHash } from 'node:crypto';
import type { Channel } from '../../src/domain/events.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { Prng } from '../../src/ingest/demo/prng.js';

const DAY = 86_400_000;
const PATHS = ['/', '/pricing', '/blog', '/blog/a', '/docs', '/about', '/signup', '/café'];
const CHANNELS: Channel[] = ['Direct', 'Search', 'Referral', 'Social', 'Email', 'Paid', 'Other'];
const CLASSES = ['human', 'human', 'human', 'human', 'ai_agent', 'bot', 'ai_bot'] as const;

/** The demo's seeded PRNG: the same seed gives the same rows on every machine. */
function prng(seed: number): () => number {
  const p = new Prng(seed);
  return () => p.next();
}

/**
 * `n` events of `siteId` spread over `days` UTC days from `startMs`, by about n/3 visitors, visits of
 * a few events close in time, in time order; ids are content hashes like the importer's.
 */
export function manyRows(opts: {
  siteId: string;
  n: number;
  days: number;
  startMs: number;
  seed: number;
  visitors?: number;
  tenants?: readonly (string | null)[];
}): EventRow[] {
  const r = prng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: EventRow[] = [];
  const visitors = opts.visitors ?? Math.max(1, Math.floor(opts.n / 3));
  while (out.length < opts.n) {
    const v = Math.floor(r() * visitors);
    const day = Math.floor(r() * opts.days);
    let ts = opts.startMs + day * DAY + Math.floor(r() * (DAY - 3_600_000));
    const tenant = opts.tenants ? pick(opts.tenants) : null;
    const cls = CLASSES[v % CLASSES.length];
    const channel = pick(CHANNELS);
    const events = 1 + Math.floor(r() * 4);
    for (let i = 0; i < events && out.length < opts.n; i++) {
      const action = i > 0 && r() < 0.2;
      const row: EventRow = {
        event_id: '',
        site_id: opts.siteId,
        tenant_id: tenant,
        ts_ms: ts,
        type: action ? 'action' : 'pageview',
        profile: 'extended',
        visitor_key: `v${v}`,
        path_canon: pick(PATHS),
        page_title: r() < 0.8 ? `Title ${Math.floor(r() * 3)}` : null,
        referrer_host: channel === 'Direct' ? null : pick(['google.com', 't.co', 'example.org']),
        utm_source: r() < 0.2 ? 'news' : null,
        utm_medium: r() < 0.2 ? 'email' : null,
        utm_campaign: null,
        has_click_id: false,
        country: pick(['DE', 'FR', 'US', null]),
        region: pick(['FR-IDF', 'US-CA', null]),
        city: pick(['Paris', 'Berlin', null]),
        device_type: pick(['desktop', 'mobile', 'tablet'] as const),
        browser_family: pick(['Chrome', 'Firefox', 'Safari']),
        os_family: pick(['Windows', 'macOS', 'iOS']),
        traffic_class: cls,
        engagement_time_ms: Math.floor(r() * 30_000),
        action_name: action ? pick(['ui.click', 'form.submit', 'signup.done']) : null,
        family: action ? pick(['instrumentation', 'forms', 'custom'] as const) : null,
        event_name: null,
        action_id: null,
        action_target_host: null,
        form_id: null,
        form_action_path: null,
        channel,
        prop_keys: [],
        prop_values: [],
      };
      row.event_id = createHash('sha256')
        .update(JSON.stringify({ ...row, n: out.length % 7 === 0 ? 0 : out.length }))
        .digest('hex')
        .slice(0, 32);
      out.push(row);
      ts += 1000 + Math.floor(r() * 20 * 60_000);
      if (ts >= opts.startMs + (day + 1) * DAY) break;
    }
  }
  return out.sort((a, b) => a.ts_ms - b.ts_ms);
}

/** The same rows in a random order (Fisher-Yates with a seeded PRNG). */
export function shuffled<T>(rows: readonly T[], seed: number): T[] {
  const r = prng(seed);
  const out = [...rows];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
