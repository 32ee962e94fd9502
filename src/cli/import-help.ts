// The NDJSON event format as `footfall import events --help` shows it: what validate.ts checks,
// in a few lines (README "NDJSON events" has the table).
import { ACTION_FAMILIES, DEVICE_TYPES, TRAFFIC_CLASSES } from '../domain/events.js';

export const EVENTS_FORMAT_HELP = `
Input: one JSON object per line (NDJSON), plain or gzip-compressed; blank lines, unknown fields,
null and "" are ignored. A bad line is rejected with its number and every problem; the rest import.

Fields (* required):
  ts *                 ISO 8601 instant with Z or an offset (2025-03-09T14:03:11Z); at most 5 min ahead
  type *               pageview | action
  site_id *            the site's id (footfall site list); may come from --site instead
  tenant_id            a tenant of the site
  url | path           * for pageviews: an absolute http(s) URL or a path from /; the query gives utm_*
  title                page title
  referrer             full URL; stored as its host (a host of the site itself: no referrer)
  visitor_key          * your own daily visitor key, or else:
  ip + user_agent      * hashed with a daily salt into the key, then dropped (ip also gives the location)
  user_agent           gives device_type, browser_family, os_family, traffic_class unless sent
  device_type          ${DEVICE_TYPES.join(' | ')}
  browser_family, os_family, region (ISO 3166-2 code or name), city
  country              ISO 3166-1 alpha-2, upper case (DE)
  utm_source, utm_medium, utm_campaign   override the URL's
  traffic_class        ${TRAFFIC_CLASSES.join(' | ')} (default: from user_agent, else human)
  engagement_time_ms   integer, 0 to 86400000 (default 0)
  action_name          * for actions: ui.click, outbound.click, file.download, form.submit, or your own
  family               ${ACTION_FAMILIES.join(' | ')} (default: from action_name)
  event_name, action_id, action_target_host, form_id, form_action_path   actions only

Example:
  {"ts":"2025-03-09T14:03:11Z","type":"pageview","site_id":"site_…","url":"https://shop.example/pricing?utm_source=mail","referrer":"https://www.google.com/","ip":"203.0.113.7","user_agent":"Mozilla/5.0 …"}
`;
