// Automated-client rules for traffic_class (docs/product.md §4.7). The product's own lists decide
// the AI classes first (most AI clients also look like bots); then isbot (Unlicense), a maintained
// list of crawlers, scanners, fetchers, HTTP libraries and headless browsers, decides `bot`.
// The AI tokens are case-insensitive and matched anywhere in the user agent.
import { isbot } from 'isbot';
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

function lowered(tokens: readonly string[]): string[] {
  return tokens.map((t) => t.toLowerCase());
}
const AI_AGENT = lowered(AI_AGENT_TOKENS);
const AI_BOT = lowered(AI_BOT_TOKENS);

/**
 * Traffic class of a user agent. An empty or whitespace-only user agent is a bot: every browser
 * sends one, scripts often do not. Anything else isbot does not recognise is human.
 */
export function trafficClassOf(ua: string): TrafficClass {
  return classes.get(ua);
}

// Memoized: a log repeats a few thousand agents, and isbot is one large regular expression.
const classes = new BoundedMemo(classOf, 4096, 2048);

function classOf(ua: string): TrafficClass {
  const trimmed = ua.trim();
  if (trimmed === '' || trimmed === '-') return 'bot';
  const lower = trimmed.toLowerCase();
  if (AI_AGENT.some((t) => lower.includes(t))) return 'ai_agent';
  if (AI_BOT.some((t) => lower.includes(t))) return 'ai_bot';
  return isbot(trimmed) ? 'bot' : 'human';
}
