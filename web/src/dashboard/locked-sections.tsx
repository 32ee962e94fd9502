// Sections of a report that the site's collection profile keeps locked (availability.sections), named
// with the API's reason, so that an empty list is never read as "nothing happened".
import type { ReadBody } from '../api/read.js';
import { dayLabel } from './periods.js';

type Availability = ReadBody<'/v1/reports/actions'>['availability'];

const SECTION_NAMES: Record<string, string> = {
  actions_advanced: 'Advanced actions (errors, custom events beyond the simple ones)',
  overview_regions: 'Regions',
  overview_cities: 'Cities',
  acquisition_attribution: 'UTM sources, mediums and campaigns',
  audience_top_campaigns: 'Campaigns',
  technology_regions: 'Regions',
  technology_cities: 'Cities',
  overview_acquisition: 'Acquisition',
};

const REASONS: Record<string, string> = {
  extended_data_required: 'the site collects with the strict profile, and these need extended data',
  requested_period_has_no_extended_data: 'no extended data was collected in this period',
  requested_period_crosses_profile_change: 'the period crosses the change of collection profile',
  outside_source_coverage: 'the period is outside the data collected',
  section_not_collected_in_runtime: 'this server does not collect them',
  strict_safe_route: 'the route is limited to strict-safe data',
};

type Window = Availability['sections'][number]['current'];

/** Why a section is not whole. A period that starts before the site's first data says from which day it
 * counts ("partly available, because the period is outside the data collected" read as a fault). */
function sectionWords(w: Window): string {
  if (w.reason === 'outside_source_coverage') {
    return w.compatibleStart
      ? `counted from ${dayLabel(w.compatibleStart.slice(0, 10))}, when the site's data starts`
      : 'nothing collected in this period yet';
  }
  const reason = w.reason ? `, because ${REASONS[w.reason] ?? w.reason}` : '';
  return `${w.status === 'locked_by_profile' ? 'locked' : 'partly available'}${reason}`;
}

export function LockedSections({ availability }: { availability: Availability }) {
  const locked = availability.sections.filter((s) => s.current.status !== 'available');
  if (locked.length === 0) return null;
  return (
    <ul class="locked-sections">
      {locked.map((s) => (
        <li key={s.id} class="locked" data-section={s.id} data-status={s.current.status}>
          <strong>{SECTION_NAMES[s.id] ?? s.id}</strong>: {sectionWords(s.current)}.
        </li>
      ))}
    </ul>
  );
}
