// The breakdown dimensions as people read them: a label per API name, and each row's key in words
// (a country code as its name, no value as "(none)").
import type { Dimension } from './query.js';

export const DIMENSION_LABELS: Record<Dimension, string> = {
  page: 'Page',
  entry_page: 'Entry page',
  exit_page: 'Exit page',
  referrer: 'Referrer',
  channel: 'Channel',
  source: 'UTM source',
  medium: 'UTM medium',
  campaign: 'UTM campaign',
  country: 'Country',
  region: 'Region',
  city: 'City',
  device: 'Device',
  browser: 'Browser',
  os: 'Operating system',
  tenant: 'Tenant',
  goal: 'Goal',
  event: 'Event',
  action: 'Action',
};

export function dimensionLabel(name: string): string {
  if (name.startsWith('prop:')) return `Property ${name.slice('prop:'.length)}`;
  return (DIMENSION_LABELS as Record<string, string>)[name] ?? name;
}

let regionNames: Intl.DisplayNames | null | undefined;
function countryName(code: string): string {
  if (regionNames === undefined) {
    try {
      regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
    } catch {
      regionNames = null;
    }
  }
  try {
    return regionNames?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** A row's key in words. The filter keeps the key itself. */
export function keyLabel(dimension: string, key: string | null): string {
  if (key === null) return '(none)';
  if (dimension === 'country') return countryName(key);
  if (dimension === 'device') return key.charAt(0).toUpperCase() + key.slice(1);
  return key;
}

export interface PanelTab {
  dimension: Dimension;
  label: string;
}

export interface PanelSpec {
  id: string;
  title: string;
  tabs: readonly PanelTab[];
}

/** The top lists, two by two: where visitors come from, what they read, where they are, what they use. */
export const TOP_LISTS: readonly PanelSpec[] = [
  {
    id: 'sources',
    title: 'Sources',
    tabs: [
      { dimension: 'channel', label: 'Channels' },
      { dimension: 'referrer', label: 'Referrers' },
      // the campaign tags of the landing URL (utm_source, utm_medium, utm_campaign), as Plausible's Sources shows them
      { dimension: 'source', label: 'UTM source' },
      { dimension: 'medium', label: 'UTM medium' },
      { dimension: 'campaign', label: 'UTM campaign' },
    ],
  },
  {
    id: 'pages',
    title: 'Pages',
    tabs: [
      { dimension: 'page', label: 'Top pages' },
      { dimension: 'entry_page', label: 'Entry pages' },
      { dimension: 'exit_page', label: 'Exit pages' },
    ],
  },
  {
    id: 'locations',
    title: 'Locations',
    tabs: [
      { dimension: 'country', label: 'Countries' },
      { dimension: 'region', label: 'Regions' },
      { dimension: 'city', label: 'Cities' },
    ],
  },
  {
    id: 'devices',
    title: 'Devices',
    tabs: [
      { dimension: 'device', label: 'Devices' },
      { dimension: 'browser', label: 'Browsers' },
      { dimension: 'os', label: 'OS' },
    ],
  },
];
