// What each query API dimension reads (the engines' QueryGroup): the events' own fields, a custom property,
// or a column of the visit. One table, used by the read plan and by every engine's compiler, so a dimension
// and a filter on it always read the same thing.
import { invalidParams } from '../errors.js';
import type { EventDimension, VisitDimension } from './query-body.js';

/**
 * How a query API read buckets time (zone-buckets.ts): by the local clock, `ts + offset`
 * where `offsets` says the offset from each instant on (the first entry covers the window's start), in
 * local hours, days or ISO weeks (key: local hours or days since the epoch; weeks: the Monday's day
 * number); or by `edges` (key: i where edges[i] <= ts < edges[i + 1]), e.g. local months.
 */
export type QueryBucketing =
  | { by: 'clock'; unit: 'hour' | 'day' | 'week'; offsets: readonly { fromMs: number; offsetMs: number }[] }
  | { by: 'edges'; edges: readonly number[] };

/** A grouping of the query API other than time, as the engines read it. */
export type QueryGroup =
  /** propKey: each key of an event's custom properties (an event with three counts under each of them) */
  | { kind: 'page' | 'name' | 'goal' | 'propKey' }
  /** an action's name and detail (pageviews are in no group); simpleOnly: the simple actions alone (a strict site's) */
  | { kind: 'action'; simpleOnly?: boolean }
  | { kind: 'prop'; key: string }
  /** a column of the session (visit:*), or tenant_id */
  | { kind: 'visit'; column: string };

const PROP_PREFIX = 'event:props:';

/** visit:* dimensions and the session column each reads (`source`: the campaign's source, else the referrer's host). */
const VISIT_COLUMNS: Readonly<Record<string, string>> = {
  'visit:entry_page': 'entry_page',
  'visit:exit_page': 'exit_page',
  'visit:source': 'source',
  'visit:referrer': 'referrer_host',
  'visit:channel': 'channel',
  'visit:utm_source': 'utm_source',
  'visit:utm_medium': 'utm_medium',
  'visit:utm_campaign': 'utm_campaign',
  'visit:device': 'device_type',
  'visit:browser': 'browser_family',
  'visit:os': 'os_family',
  'visit:country': 'country',
  'visit:country_name': 'country',
  'visit:region': 'region',
  'visit:region_name': 'region',
  'visit:city': 'city',
  'visit:city_name': 'city',
  'visit:tenant': 'tenant_id',
};

/** Dimensions Plausible has and footfall does not collect: a 422 that says so, never an empty answer. */
const NOT_COLLECTED: Readonly<Record<string, string>> = {
  'event:hostname': 'footfall does not store the hostname of each event (a site is its registered hostnames): leave it out',
  'visit:utm_content': 'footfall does not collect utm_content: group by visit:utm_campaign or visit:utm_source',
  'visit:utm_term': 'footfall does not collect utm_term: group by visit:utm_campaign or visit:utm_source',
};

/** Session columns only the Extended collection profile stores (a strict site: 409, as /v1). */
export const EXTENDED_ONLY_COLUMNS: readonly string[] = ['utm_source', 'utm_medium', 'utm_campaign', 'region', 'city'];

/** The group a dimension reads; refuses (422, naming `field`) a dimension footfall does not collect. */
export function queryGroupOf(dimension: EventDimension | VisitDimension, field: string): QueryGroup {
  const refusal = NOT_COLLECTED[dimension];
  if (refusal) throw invalidParams(`${field}: ${refusal}`, { field });
  if (dimension.startsWith(PROP_PREFIX)) return { kind: 'prop', key: dimension.slice(PROP_PREFIX.length) };
  if (dimension === 'event:page') return { kind: 'page' };
  if (dimension === 'event:name') return { kind: 'name' };
  if (dimension === 'event:goal') return { kind: 'goal' };
  if (dimension === 'event:props') return { kind: 'propKey' };
  if (dimension === 'event:action') return { kind: 'action' };
  const column = VISIT_COLUMNS[dimension];
  if (column === undefined) throw new RangeError(`no column for ${dimension}`);
  return { kind: 'visit', column };
}

/** Whether a group reads a field only Extended collection stores (custom properties included). */
export function isExtendedOnlyGroup(g: QueryGroup): boolean {
  if (g.kind === 'prop' || g.kind === 'propKey') return true;
  return g.kind === 'visit' && EXTENDED_ONLY_COLUMNS.includes(g.column);
}
