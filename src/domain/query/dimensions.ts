// The breakdown and filter dimensions (docs/product.md §5), each with ONE definition: the table and
// column it reads. Session attributes come from the session (its first event, docs/product.md §8.3),
// so pageviews by channel and sessions by channel agree and every breakdown's rows add up to the total.

export const DIMENSIONS = [
  'page',
  'entry_page',
  'exit_page',
  'referrer',
  'channel',
  'source',
  'medium',
  'campaign',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'tenant',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface DimensionDef {
  name: Dimension;
  /**
   * page: the path of the events themselves (pageviews, for sessions and visitors);
   * session: a column of the session, reached from events through session_id;
   * tenant: a column both tables carry.
   */
  scope: 'page' | 'session' | 'tenant';
  /** column on the sessions table (session scope) or events table (page scope) */
  column: string;
  /** not stored under strict collection (docs/product.md §4.1) */
  extendedOnly: boolean;
}

const def = (name: Dimension, scope: DimensionDef['scope'], column: string, extendedOnly = false): DimensionDef => ({
  name,
  scope,
  column,
  extendedOnly,
});

export const DIMENSION_DEFS: Readonly<Record<Dimension, DimensionDef>> = {
  page: def('page', 'page', 'path_canon'),
  entry_page: def('entry_page', 'session', 'entry_page'),
  exit_page: def('exit_page', 'session', 'exit_page'),
  referrer: def('referrer', 'session', 'referrer_host'),
  channel: def('channel', 'session', 'channel'),
  source: def('source', 'session', 'utm_source', true),
  medium: def('medium', 'session', 'utm_medium', true),
  campaign: def('campaign', 'session', 'utm_campaign', true),
  country: def('country', 'session', 'country'),
  region: def('region', 'session', 'region', true),
  city: def('city', 'session', 'city', true),
  device: def('device', 'session', 'device_type'),
  browser: def('browser', 'session', 'browser_family'),
  os: def('os', 'session', 'os_family'),
  tenant: def('tenant', 'tenant', 'tenant_id'),
};

export function isDimension(value: string): value is Dimension {
  return Object.hasOwn(DIMENSION_DEFS, value);
}

export const EXTENDED_ONLY_DIMENSIONS: readonly Dimension[] = DIMENSIONS.filter((d) => DIMENSION_DEFS[d].extendedOnly);

export function isExtendedOnlyDimension(value: string): boolean {
  return isDimension(value) && DIMENSION_DEFS[value].extendedOnly;
}
