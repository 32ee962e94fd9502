// What a dashboard panel says when a read is refused. The API's code decides (kept as data-code); the
// words are a site owner's, not the API's ("This route requires Extended collection" names a route, and
// says nothing of where to change it). Two refusals stop every panel at once (a suspended site, a
// period the plan does not keep): the note at the top of the page says those once (page-note.tsx), and
// each panel only shows a calm placeholder.
import type { Failure } from '../api/read.js';
import { Problem } from '../ui/panel-state.js';

/** Refusals every panel meets at once, said once by the page's note. */
const PAGE_WIDE = new Set(['SITE_INACTIVE', 'RETENTION_EXCEEDED']);

export const isPageWide = (failure: Failure) => PAGE_WIDE.has(failure.code);

const PROFILE = "switch the site's profile in Settings > Sites";

/** The refusal in words; `what` names the panel's numbers ("Regions", "Actions"). */
export function panelWords(failure: Failure, what: string): string {
  switch (failure.code) {
    case 'REPORT_LOCKED_BY_PROFILE':
      return `${what} are collected only under the Extended profile: ${PROFILE}.`;
    case 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD':
      return `${what} were not collected in this period (the site had the Strict profile then): choose a later period.`;
    case 'HARD_CAP_REACHED':
      return "This workspace has used this month's reads of its plan: the numbers come back next month, or with a larger plan.";
    case 'RATE_LIMITED':
      return 'Too many requests at once: reload the page in a moment.';
    case 'FORBIDDEN':
      return `${what} are not shown to this reader.`;
    default:
      return failure.status >= 500 || failure.status === 0
        ? 'The server could not answer just now: reload the page in a moment.'
        : failure.message;
  }
}

/** A panel's refusal: a placeholder for a page-wide one, otherwise the Problem box in words. */
export function PanelFailure({ failure, what }: { failure: Failure; what: string }) {
  if (isPageWide(failure)) {
    return (
      <p class="empty" data-code={failure.code}>
        Nothing to show: see the note at the top of the page.
      </p>
    );
  }
  return <Problem failure={{ ...failure, message: panelWords(failure, what) }} />;
}
