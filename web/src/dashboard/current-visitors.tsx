// Visitors of the last five minutes, polled from the dashboard's own live route (there is no /v1 twin):
// every 30 seconds, every 5 while the site has no event yet. Dashboard only: an embed has no session.
import { useEffect, useState } from 'preact/hooks';
import { APP_API } from '../api/manage.js';
import { failureOf, fetchOrFailure, type Failure } from '../api/read.js';

interface Live {
  visitors: number;
  last_event_at: string | null;
}

export function CurrentVisitors({ siteId }: { siteId: string }) {
  const [live, setLive] = useState<Live | Failure | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = async () => {
      const res = await fetchOrFailure(`${APP_API}/sites/${encodeURIComponent(siteId)}/live`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      const next: Live | Failure = !(res instanceof Response) ? res : res.ok ? ((await res.json()) as Live) : await failureOf(res);
      if (stopped) return;
      setLive(next);
      const waiting = 'visitors' in next && next.last_event_at === null;
      timer = setTimeout(poll, waiting ? 5_000 : 30_000);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [siteId]);
  if (live === null || !('visitors' in live)) return null;
  if (live.last_event_at === null) {
    return (
      <p class="live waiting" role="status">
        Waiting for the first event. Once the site's script sends one, the numbers below fill in.
      </p>
    );
  }
  return (
    <p class="live" role="status">
      <span class="live-dot" aria-hidden="true" /> {live.visitors} current {live.visitors === 1 ? 'visitor' : 'visitors'}
    </p>
  );
}
