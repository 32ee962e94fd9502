// The site's current visitors (last five minutes), polled from the dashboard's own live route (there is
// no /v1 twin): every 30 seconds, every 5 while the site has no event yet. Until its first event the page
// says so and gives the script tag to copy; when one arrives it turns live and reads its numbers again.
import { useEffect, useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { LiveVisitors } from '../api/manage-types.js';
import { refreshReads } from '../api/read-cache.js';
import type { Failure } from '../api/read.js';
import { CopyField } from '../ui/copy-field.js';

const POLL_MS = 30_000;
const WAITING_POLL_MS = 5_000;

/** null until the first answer; a Failure is kept quiet (the count is a bonus, the numbers below are not). */
export function useLive(siteId: string): LiveVisitors | Failure | null {
  const [live, setLive] = useState<LiveVisitors | Failure | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let waited = false;
    const poll = async () => {
      const r = await manage('GET', '/sites/{site_id}/live', { path: { site_id: siteId } });
      if (stopped) return;
      const next = r.ok ? r.data : r.error;
      const waiting = r.ok && r.data.last_event_at === null;
      // the first event arrived while the page was open: what it read before counted nothing
      if (r.ok && !waiting && waited) refreshReads();
      waited = waiting;
      setLive(next);
      timer = setTimeout(poll, waiting ? WAITING_POLL_MS : POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [siteId]);
  return live;
}

const isLive = (live: LiveVisitors | Failure | null): live is LiveVisitors => live !== null && 'visitors' in live;

export function LiveBadge({ live }: { live: LiveVisitors | Failure | null }) {
  if (!isLive(live) || live.last_event_at === null) return null;
  return (
    <p class="live" role="status" data-visitors={live.visitors}>
      <span class={`live-dot${live.visitors === 0 ? ' idle' : ''}`} aria-hidden="true" /> {live.visitors} current{' '}
      {live.visitors === 1 ? 'visitor' : 'visitors'}
    </p>
  );
}

/** The script tag a site's pages load (docs: the tracker), for the site's first hostname. */
export function scriptTag(domain: string, scriptUrl: string): string {
  return `<script defer data-domain="${domain}" src="${scriptUrl}"></script>`;
}

export function FirstEvent({ live, domain, scriptUrl }: { live: LiveVisitors | Failure | null; domain: string; scriptUrl: string }) {
  if (!isLive(live) || live.last_event_at !== null) return null;
  return (
    <section class="panel first-event" aria-labelledby="first-event-title" data-waiting="">
      <h2 id="first-event-title">
        <span class="pulse-dot" aria-hidden="true" /> Waiting for the first event
      </h2>
      <p>
        Add this tag to the <code>&lt;head&gt;</code> of every page of <strong>{domain}</strong>. This page checks every 5 seconds and fills
        in as soon as a visit arrives.
      </p>
      <CopyField label="Script tag" value={scriptTag(domain, scriptUrl)} block />
    </section>
  );
}
