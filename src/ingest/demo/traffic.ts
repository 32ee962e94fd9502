// Synthetic but plausible traffic for the demo and the import bench: a weekday rhythm, daytime
// peaks, every channel (with self-referrals and click ids), utm tags, countries with regions and
// cities, devices through real user-agent strings, every action family, bots and AI traffic.
// Deterministic for a given Prng. Emits import lines (docs/product.md §3), so it exercises the real importer.
import { Prng } from './prng.js';

export interface TrafficSite {
  id: string;
  host: string;
  /** tenant ids visitors are spread over (none: no tenant_id) */
  tenants: readonly string[];
  visitorsPerDay: number;
  /** relative growth over the period, e.g. 0.3 = +30% from first to last day */
  growth?: number;
}

const DAY_MS = 86_400_000;
const HOUR_WEIGHTS = [2, 1, 1, 1, 1, 2, 3, 5, 7, 8, 9, 9, 9, 10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((w, h) => [h, w] as const);
const WEEKDAY_FACTOR = [0.55, 1, 1.05, 1.05, 1, 0.9, 0.6]; // Sunday first

const PAGES: readonly (readonly [string, string, number])[] = [
  ['/', 'Home', 30],
  ['/pricing', 'Pricing', 12],
  ['/features', 'Features', 10],
  ['/blog', 'Blog', 8],
  ['/blog/privacy-first-analytics', 'Privacy-first analytics', 6],
  ['/blog/sessions-explained', 'Sessions explained', 5],
  ['/blog/utm-guide', 'A guide to UTM tags', 4],
  ['/blog/caf%C3%A9-culture', 'Café culture', 2],
  ['/docs/getting-started', 'Getting started', 7],
  ['/docs/api', 'API reference', 6],
  ['/about', 'About us', 3],
  ['/contact', 'Contact', 4],
  ['/signup', 'Sign up', 5],
  ['/signup/thanks', 'Welcome!', 2],
  ['/careers', 'Careers', 1],
];

type Source = { referrer?: string; query?: string };
const SEARCH = [
  'https://www.google.com/',
  'https://www.google.co.uk/',
  'https://www.google.de/',
  'https://www.bing.com/',
  'https://duckduckgo.com/',
  'https://search.brave.com/search?q=x',
  'https://www.ecosia.org/',
  'https://yandex.ru/',
];
const SOCIAL = [
  'https://t.co/abc123',
  'https://l.facebook.com/l.php',
  'https://www.linkedin.com/feed/',
  'https://www.reddit.com/r/webdev/',
  'https://news.ycombinator.com/item?id=1',
  'https://mastodon.social/@someone',
  'https://bsky.app/profile/x',
  'https://www.youtube.com/watch?v=1',
];
const REFERRAL = [
  'https://github.com/footfall/footfall',
  'https://dev.to/someone/post',
  'https://stackoverflow.com/questions/1',
  'https://blog.example.org/review',
  'https://www.producthunt.com/posts/footfall',
];
const CAMPAIGNS = ['spring_launch', 'brand', 'retargeting', 'webinar_q2'];

function source(r: Prng, host: string): Source {
  switch (
    r.weighted([
      ['direct', 34],
      ['search', 28],
      ['social', 10],
      ['referral', 10],
      ['email', 5],
      ['paid', 8],
      ['other', 3],
      ['self', 2],
    ] as const)
  ) {
    case 'direct':
      return {};
    case 'self':
      return { referrer: `https://www.${host}/blog` };
    case 'search':
      return { referrer: r.pick(SEARCH), query: r.chance(0.1) ? 'utm_medium=organic&utm_source=google' : undefined };
    case 'social':
      return {
        referrer: r.pick(SOCIAL),
        query: r.chance(0.3) ? `utm_source=social&utm_medium=social&utm_campaign=${r.pick(CAMPAIGNS)}` : undefined,
      };
    case 'referral':
      return { referrer: r.pick(REFERRAL) };
    case 'email':
      return { query: `utm_source=newsletter&utm_medium=email&utm_campaign=${r.pick(CAMPAIGNS)}` };
    case 'paid':
      return r.chance(0.5)
        ? { referrer: 'https://www.google.com/', query: 'gclid=Cj0KCQ' + r.int(1000, 9999) }
        : {
            referrer: r.chance(0.5) ? 'https://www.facebook.com/' : undefined,
            query: `utm_source=${r.pick(['google', 'facebook', 'bing'])}&utm_medium=${r.pick(['cpc', 'paid_social', 'display'])}&utm_campaign=${r.pick(CAMPAIGNS)}`,
          };
    default:
      return { query: `utm_source=partner&utm_medium=affiliate&utm_campaign=${r.pick(CAMPAIGNS)}` };
  }
}

const COUNTRIES: readonly (readonly [string, number, readonly (readonly [string, string])[]])[] = [
  [
    'US',
    30,
    [
      ['California', 'San Francisco'],
      ['New York', 'New York'],
      ['Texas', 'Austin'],
      ['Washington', 'Seattle'],
    ],
  ],
  [
    'DE',
    12,
    [
      ['Bavaria', 'Munich'],
      ['Berlin', 'Berlin'],
      ['Hamburg', 'Hamburg'],
    ],
  ],
  [
    'GB',
    10,
    [
      ['England', 'London'],
      ['Scotland', 'Edinburgh'],
    ],
  ],
  [
    'FR',
    7,
    [
      ['Île-de-France', 'Paris'],
      ['Auvergne-Rhône-Alpes', 'Lyon'],
    ],
  ],
  [
    'IN',
    8,
    [
      ['Karnataka', 'Bengaluru'],
      ['Maharashtra', 'Mumbai'],
    ],
  ],
  ['BR', 5, [['São Paulo', 'São Paulo']]],
  [
    'CA',
    5,
    [
      ['Ontario', 'Toronto'],
      ['Quebec', 'Montréal'],
    ],
  ],
  ['JP', 4, [['Tokyo', 'Tokyo']]],
  ['NL', 4, [['North Holland', 'Amsterdam']]],
  ['AU', 3, [['New South Wales', 'Sydney']]],
  ['ES', 3, [['Madrid', 'Madrid']]],
  ['PL', 3, [['Masovia', 'Warsaw']]],
  ['SE', 2, [['Stockholm', 'Stockholm']]],
];

const HUMAN_UAS: readonly (readonly [string, number])[] = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 30],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 12],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 5],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0', 6],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    22,
  ],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', 18],
  ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 5],
];
const BOT_UAS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'curl/8.5.0',
];
const AI_BOT_UAS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
];
const AI_AGENT_UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';

type Action = Record<string, string>;
const ACTIONS: readonly (readonly [Action, number])[] = [
  [{ action_name: 'ui.click', action_id: 'nav-cta' }, 30],
  [{ action_name: 'outbound.click', action_target_host: 'github.com' }, 8],
  [{ action_name: 'file.download', action_id: 'whitepaper-pdf', event_name: 'whitepaper.pdf' }, 5],
  [{ action_name: 'form.submit', form_id: 'contact', form_action_path: '/contact' }, 5],
  [{ action_name: 'video.play', event_name: 'demo-video' }, 6],
  [{ action_name: 'error.js', event_name: 'TypeError' }, 3],
  [{ action_name: 'signup.completed', family: 'goals', event_name: 'signup' }, 3],
];

interface Visitor {
  ip: string;
  ua: string;
  cls: 'human' | 'ai_agent' | 'bot' | 'ai_bot';
  country: number;
  region: number;
  keyed: boolean;
  tenant: string | null;
}

function visitor(r: Prng, site: TrafficSite): Visitor {
  const cls = r.weighted([
    ['human', 88],
    ['ai_agent', 3],
    ['bot', 6],
    ['ai_bot', 3],
  ] as const);
  const ua =
    cls === 'human' ? r.weighted(HUMAN_UAS) : cls === 'bot' ? r.pick(BOT_UAS) : cls === 'ai_bot' ? r.pick(AI_BOT_UAS) : AI_AGENT_UA;
  const country = r.weighted(COUNTRIES.map((c, i) => [i, c[1]] as const));
  return {
    ip: `${r.int(11, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`,
    ua,
    cls,
    country,
    region: r.int(0, COUNTRIES[country][2].length - 1),
    keyed: r.chance(0.5),
    tenant: site.tenants.length ? r.pick(site.tenants) : null,
  };
}

/**
 * Import lines of one site for the UTC days [startDayMs, startDayMs + days), none after nowMs.
 * Yields one visitor-day at a time (an array of lines).
 */
export function* siteTraffic(
  r: Prng,
  site: TrafficSite,
  startDayMs: number,
  days: number,
  nowMs: number,
): Generator<Record<string, unknown>[]> {
  for (let d = 0; d < days; d++) {
    const dayMs = startDayMs + d * DAY_MS;
    if (dayMs > nowMs) break;
    const trend = 1 + (site.growth ?? 0.3) * (d / Math.max(days - 1, 1));
    const n = Math.round(site.visitorsPerDay * WEEKDAY_FACTOR[new Date(dayMs).getUTCDay()] * trend * (0.85 + 0.3 * r.next()));
    for (let i = 0; i < n; i++) {
      const v = visitor(r, site);
      const lines: Record<string, unknown>[] = [];
      const sessions = r.chance(0.15) ? 2 : 1;
      let t = dayMs + r.weighted(HOUR_WEIGHTS) * 3_600_000 + r.int(0, 3_599_999);
      for (let s = 0; s < sessions; s++) {
        visitSession(r, site, v, t, i, lines);
        t += r.int(31, 240) * 60_000; // a later, separate visit
      }
      const kept = lines.filter((l) => Date.parse(l.ts as string) <= nowMs && Date.parse(l.ts as string) < dayMs + DAY_MS);
      if (kept.length) yield kept;
    }
  }
}

function visitSession(r: Prng, site: TrafficSite, v: Visitor, startMs: number, n: number, out: Record<string, unknown>[]): void {
  const src = source(r, site.host);
  const [country, , regions] = COUNTRIES[v.country];
  const [region, city] = regions[v.region];
  const base: Record<string, unknown> = { site_id: site.id, country };
  if (v.tenant) base.tenant_id = v.tenant;
  if (v.country % 3 !== 2) {
    base.region = region;
    base.city = city;
  }
  if (v.keyed) {
    base.visitor_key = `k${n.toString(36)}-${v.ip.replace(/\./g, '')}`;
    base.user_agent = v.ua;
  } else {
    base.ip = v.ip;
    base.user_agent = v.ua;
  }
  if (v.cls === 'ai_agent') base.traffic_class = 'ai_agent';
  const pages = v.cls === 'bot' || v.cls === 'ai_bot' ? r.int(1, 6) : r.count(2.6, 12);
  let t = startMs;
  for (let p = 0; p < pages; p++) {
    const [path, title] = p === 0 && r.chance(0.5) ? PAGES[0] : r.weighted(PAGES.map((pg) => [pg, pg[2]] as const));
    const query = p === 0 && src.query ? `?${src.query}` : r.chance(0.05) ? '?ref=nav#top' : '';
    const line: Record<string, unknown> = {
      ...base,
      ts: new Date(t).toISOString(),
      type: 'pageview',
      url: `https://${site.host}${path}${query}`,
      title,
    };
    if (p === 0 && src.referrer) line.referrer = src.referrer;
    else if (p > 0) line.referrer = `https://${site.host}/`;
    const eng = v.cls === 'human' || v.cls === 'ai_agent' ? (r.chance(0.55) ? r.int(200, 4_000) : r.int(3_000, 60_000)) : 0;
    line.engagement_time_ms = eng;
    out.push(line);
    if (v.cls === 'human' && r.chance(0.22)) {
      const a = r.weighted(ACTIONS);
      out.push({ ...base, ts: new Date(t + r.int(0, Math.max(eng, 1000))).toISOString(), type: 'action', path, ...a });
    }
    t += Math.max(eng, 1000) + r.int(1_000, 240_000);
  }
}

/** NDJSON blocks totalling exactly `events` lines of one site over the 30 days before endMs (the bench). */
export function* generateBenchLines(opts: { siteId: string; events: number; endMs: number; seed: number }): Generator<string> {
  const r = new Prng(opts.seed);
  const days = 30;
  const startDayMs = Math.floor(opts.endMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const site: TrafficSite = {
    id: opts.siteId,
    host: 'bench.example',
    tenants: [],
    visitorsPerDay: Math.ceil(opts.events / days / 2.5),
    growth: 0,
  };
  let left = opts.events;
  while (left > 0) {
    let block = '';
    for (const lines of siteTraffic(r, site, startDayMs, days, opts.endMs)) {
      for (const l of lines) {
        if (left === 0) break;
        block += JSON.stringify(l) + '\n';
        left--;
      }
      if (block.length > 1 << 20 || left === 0) {
        yield block;
        block = '';
      }
      if (left === 0) return;
    }
    if (block) yield block;
  }
}
