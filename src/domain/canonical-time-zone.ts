// A site's time zone (docs/decisions/site-timezone.md): an IANA name the runtime's Intl knows, in one
// spelling per name, so that the stores and the dashboard compare and show the same text. Pure.

/** Sites without a zone of their own, and every site made before zones existed, count days in UTC. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** What to send instead, for every refusal's message. */
export const TIME_ZONE_HINT = 'an IANA time zone name such as Europe/Berlin or Asia/Kathmandu';

/** The longest IANA name is 32 characters; twice that leaves room and still keeps junk out. */
const MAX_LENGTH = 64;

// IANA names are letters, digits, '_', '-' and '+' in '/'-separated parts, each starting with a letter
// ('Etc/GMT+5', 'America/Port-au-Prince'). Offsets ('+05:45', '-0500') do not start with a letter: newer
// engines accept them as zones, but they have no daylight saving rules, so they are not a site's zone.
const IANA_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z][A-Za-z0-9_+-]*)*$/;

// The names IANA gives to UTC itself (zone 'Etc/UTC' and its links in 'backward' and 'etcetera'):
// all one rule, offset 0 forever, so all stored as 'UTC'.
const UTC_NAMES = new Set(
  [
    'UTC',
    'Etc/UTC',
    'Etc/UCT',
    'Etc/Universal',
    'Etc/Zulu',
    'UCT',
    'Universal',
    'Zulu',
    'Etc/GMT',
    'Etc/GMT+0',
    'Etc/GMT-0',
    'Etc/GMT0',
    'Etc/Greenwich',
    'GMT',
    'GMT+0',
    'GMT-0',
    'GMT0',
    'Greenwich',
  ].map((n) => n.toLowerCase()),
);

let listed: Map<string, string> | undefined;

/** The runtime's own list, by lower-cased name: read once, as it does not change while the process runs. */
function listedNames(): Map<string, string> {
  listed ??= new Map(Intl.supportedValuesOf('timeZone').map((n) => [n.toLowerCase(), n]));
  return listed;
}

function knownToIntl(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * The spelling to store for `input`, or null when it is not a time zone a site may have. Accepted: a
 * name of `Intl.supportedValuesOf('timeZone')`, 'UTC', and any other IANA name (a link such as
 * 'Asia/Kathmandu' beside the listed 'Asia/Katmandu', or 'Etc/GMT+5') that `Intl.DateTimeFormat`
 * accepts. Case is fixed where the runtime gives a spelling ('utc' -> 'UTC', 'europe/berlin' ->
 * 'Europe/Berlin'); UTC's other names become 'UTC'; other aliases are kept as given, not folded
 * into the runtime's preferred name, because runtimes disagree on which of two names is primary
 * (Node 20 lists 'Asia/Katmandu', newer browsers 'Asia/Kathmandu') and both name the same rules.
 */
export function canonicalTimeZone(input: unknown): string | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_LENGTH || !IANA_SHAPE.test(input)) return null;
  const resolved = knownToIntl(input);
  if (resolved === null) return null;
  const lower = input.toLowerCase();
  if (UTC_NAMES.has(lower)) return DEFAULT_TIME_ZONE;
  const inList = listedNames().get(lower);
  if (inList) return inList;
  if (resolved.toLowerCase() === lower) return resolved;
  return input;
}
