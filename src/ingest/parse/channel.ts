// Channel of an event (and so of the session it starts): docs/product.md §4.6, host matching
// per §8.6. The first of the seven rules that matches wins.
import type { Channel } from '../../domain/events.js';
import { BoundedMemo } from './memo.js';

export interface ChannelInputs {
  utm_medium: string | null;
  utm_source: string | null;
  /** optional: any utm value, campaign included, keeps an event out of Direct */
  utm_campaign?: string | null;
  has_click_id: boolean;
  /** already normalized: lower case, without www., null for none or a self-referral */
  referrer_host: string | null;
}

const PAID_MEDIUMS = new Set(['cpc', 'ppc', 'paid', 'paidsearch', 'paid_social', 'display', 'cpm', 'cpv']);
const EMAIL_MEDIUMS = new Set(['email', 'e-mail', 'newsletter']);
const SOCIAL_MEDIUMS = new Set(['social', 'social-network', 'sm']);

/** Hosts that match themselves and their subdomains. */
export const SEARCH_HOSTS: readonly string[] = [
  'bing.com',
  'duckduckgo.com',
  'baidu.com',
  'ecosia.org',
  'search.brave.com',
  'startpage.com',
  'qwant.com',
];
/** Search engines listed as `name.*`: any country domain (google.co.uk), and its subdomains. */
export const SEARCH_WILDCARDS: readonly string[] = ['google', 'yahoo', 'yandex'];
export const SOCIAL_HOSTS: readonly string[] = [
  'facebook.com',
  't.co',
  'twitter.com',
  'x.com',
  'linkedin.com',
  'lnkd.in',
  'reddit.com',
  'news.ycombinator.com',
  'instagram.com',
  'youtube.com',
  'pinterest.com',
  'tiktok.com',
  'mastodon.social',
  'bsky.app',
];

/** `host` is `listed` or one of its subdomains (a label boundary, so `notx.com` is not `x.com`). */
export function hostMatches(host: string, listed: string): boolean {
  return host === listed || host.endsWith(`.${listed}`);
}

// A country domain after the name: one top-level label (com, de, cat) or a second-level pair
// such as co.uk, com.au, co.jp.
const TOP_LABEL = /^[a-z]{2,3}$/;
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'ac', 'ne', 'or', 'go', 'gob', 'edu']);
const COUNTRY_LABEL = /^[a-z]{2}$/;

/** `host` is `name.<country domain>` or a subdomain of one (google.com, images.google.co.uk). */
export function wildcardMatches(host: string, name: string): boolean {
  const labels = host.split('.');
  for (let i = 0; i < labels.length; i++) {
    if (labels[i] !== name) continue;
    const suffix = labels.slice(i + 1);
    if (suffix.length === 1 && TOP_LABEL.test(suffix[0])) return true;
    if (suffix.length === 2 && SECOND_LEVEL.has(suffix[0]) && COUNTRY_LABEL.test(suffix[1])) return true;
  }
  return false;
}

export function isSearchHost(host: string): boolean {
  const h = host.toLowerCase();
  return SEARCH_HOSTS.some((l) => hostMatches(h, l)) || SEARCH_WILDCARDS.some((n) => wildcardMatches(h, n));
}

export function isSocialHost(host: string): boolean {
  const h = host.toLowerCase();
  return SOCIAL_HOSTS.some((l) => hostMatches(h, l));
}

const SEARCH = 1;
const SOCIAL = 2;
/** isSearchHost and isSocialHost of a lower-case host as bits: a referrer log repeats few hosts. */
const hostKinds = new BoundedMemo((h: string) => (isSearchHost(h) ? SEARCH : 0) | (isSocialHost(h) ? SOCIAL : 0));

function present(v: string | null | undefined): v is string {
  return v != null && v.trim() !== '';
}

/** Channel rules 1 to 7 of docs/product.md §4.6, in order, case-insensitive. */
export function channelOf(input: ChannelInputs): Channel {
  const medium = present(input.utm_medium) ? input.utm_medium.trim().toLowerCase() : null;
  const host = present(input.referrer_host) ? input.referrer_host.trim().toLowerCase() : null;
  if ((medium !== null && PAID_MEDIUMS.has(medium)) || input.has_click_id) return 'Paid';
  if (medium !== null && EMAIL_MEDIUMS.has(medium)) return 'Email';
  const kinds = host !== null ? hostKinds.get(host) : 0;
  if ((kinds & SEARCH) !== 0 || medium === 'organic') return 'Search';
  if ((kinds & SOCIAL) !== 0 || (medium !== null && SOCIAL_MEDIUMS.has(medium))) return 'Social';
  const anyUtm = medium !== null || present(input.utm_source) || present(input.utm_campaign);
  if (host === null && !anyUtm) return 'Direct';
  if (host !== null) return 'Referral';
  return 'Other';
}
