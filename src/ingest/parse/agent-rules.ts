// Automated-client rules for traffic_class (DESIGN 3). Order matters: AI agents and AI crawlers
// are checked before the generic bot rules, because most of them also carry a "bot" token.
// Patterns are case-insensitive and matched anywhere in the user agent.
import type { TrafficClass } from '../../domain/events.js';
import { BoundedMemo } from './memo.js';

/** AI tools fetching a page right now on behalf of a person. */
export const AI_AGENT_TOKENS: readonly string[] = [
  'ChatGPT-User',
  'Perplexity-User',
  'Claude-User',
  'MistralAI-User',
  'Meta-ExternalFetcher',
  'Gemini-Deep-Research',
];

/** Crawlers collecting pages for AI training, AI search indexes or answer engines. */
export const AI_BOT_TOKENS: readonly string[] = [
  'GPTBot',
  'OAI-SearchBot',
  'ClaudeBot',
  'Claude-Web',
  'Claude-SearchBot',
  'anthropic-ai',
  'CCBot',
  'PerplexityBot',
  'Bytespider',
  'Google-Extended',
  'Google-CloudVertexBot',
  'Applebot-Extended',
  'Amazonbot',
  'meta-externalagent',
  'FacebookBot',
  'cohere-ai',
  'cohere-training-data-crawler',
  'Diffbot',
  'YouBot',
  'DuckAssistBot',
  'AI2Bot',
  'Ai2Bot-Dolma',
  'ImagesiftBot',
  'Timpibot',
  'omgili',
  'Webzio-Extended',
  'PanguBot',
  'Kangaroo Bot',
  'iaskspider',
];

/**
 * Known automated clients whose user agent has no generic bot/crawler/spider word:
 * link previews, feed fetchers, HTTP libraries, headless browsers, monitors, SEO tools.
 */
export const BOT_TOKENS: readonly string[] = [
  // search and archive crawlers without a generic word
  'Yahoo! Slurp', 'ia_archiver', 'archive.org_bot', 'special_archiver', 'Ezooms', 'Mediapartners-Google',
  'AdsBot-Google', 'Google-InspectionTool', 'GoogleOther', 'Googlebot', 'BingPreview', 'Qwantify', 'Daumoa',
  'SiteExplorer', 'magpie-crawler', 'Nutch', 'Xenu Link Sleuth', 'LinkChecker', 'Link Validator',
  'W3C_Validator', 'Validator.nu', 'distilator', 'portscout', 'binlar', 'Robosourcer', 'Superblock',
  // link previews and social fetchers
  'facebookexternalhit', 'facebookcatalog', 'Twitterbot', 'Slackbot', 'Slack-ImgProxy', 'Discordbot',
  'TelegramBot', 'WhatsApp', 'LinkedInBot', 'Pinterestbot', 'Embedly', 'redditbot', 'SkypeUriPreview',
  'vkShare', 'Iframely', 'Mastodon/', 'Bluesky Cardyb',
  // feed fetchers and feed-reader services
  'Feedfetcher', 'FeedBurner', 'Feedly', 'Feedbin', 'FeedParser', 'Feed Fetcher', 'Tiny Tiny RSS', 'Liferea',
  'SimplePie', 'NewsBlur', 'Inoreader', 'Reeder/', 'Newsify/', 'NetNewsWire', 'LiveJournal.com', 'FreshRSS',
  'Miniflux', 'theoldreader', 'Bloglovin', 'FlipboardProxy',
  // HTTP clients, scripts and automation
  'curl/', 'Wget', 'python-requests', 'Python-urllib', 'python-httpx', 'aiohttp', 'Go-http-client',
  'libwww-perl', 'LWP::Simple', 'Java/', 'Apache-HttpClient', 'okhttp', 'node-fetch', 'axios/', 'undici',
  'HTTP_Request2', 'GuzzleHttp', 'PHP/', 'Ruby', 'libfetch', 'Scrapy', 'httpie', 'PostmanRuntime',
  'Chef Client', 'Go-resty', 'Dart/', 'reqwest', 'winhttp', 'Indy Library', 'Protocol Discovery',
  // headless browsers and test drivers
  'HeadlessChrome', 'PhantomJS', 'Puppeteer', 'Playwright', 'Selenium', 'Lighthouse', 'Cypress',
  // monitoring and SEO tools
  'Pingdom', 'UptimeRobot', 'StatusCake', 'Site24x7', 'check_http', 'GTmetrix', 'Datadog', 'NewRelicPinger',
  'SemrushBot', 'AhrefsBot', 'MJ12bot', 'DotBot', 'BLEXBot', 'SeznamBot', 'PetalBot', 'Screaming Frog',
];

/** Generic automation words (feed/rss: feed readers poll); "cubot" is a phone brand, not a robot. */
const GENERIC_BOT = /bot|crawl|spider|slurp|archiver|scraper|fetcher|headless|scanner|feed|rss/i;
const NOT_A_BOT_WORD = /cubot/gi;

function lowered(tokens: readonly string[]): string[] {
  return tokens.map((t) => t.toLowerCase());
}
const AI_AGENT = lowered(AI_AGENT_TOKENS);
const AI_BOT = lowered(AI_BOT_TOKENS);
const BOT = lowered(BOT_TOKENS);

/**
 * Traffic class of a user agent. An empty or whitespace-only user agent is a bot: every browser
 * sends one, scripts often do not. Anything else without an automation token is human.
 */
export function trafficClassOf(ua: string): TrafficClass {
  return classes.get(ua);
}

// Memoized: a log repeats a few thousand agents, and each test is a scan over ~200 tokens.
const classes = new BoundedMemo(classOf, 4096, 2048);

function classOf(ua: string): TrafficClass {
  const trimmed = ua.trim();
  if (trimmed === '' || trimmed === '-') return 'bot';
  const lower = trimmed.toLowerCase();
  if (AI_AGENT.some((t) => lower.includes(t))) return 'ai_agent';
  if (AI_BOT.some((t) => lower.includes(t))) return 'ai_bot';
  if (BOT.some((t) => lower.includes(t))) return 'bot';
  if (GENERIC_BOT.test(trimmed.replace(NOT_A_BOT_WORD, ''))) return 'bot';
  return 'human';
}
