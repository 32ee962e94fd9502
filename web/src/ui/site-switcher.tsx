// The site switcher of a site's dashboard header: a button with the site's name opens a list of links
// to every site the person reads (a disclosure, not a combobox), grouped by workspace when they are in
// more than one, with a filter box past FILTER_FROM sites. The sites are read once, when first opened.
// A link keeps the dashboard's query (period, compare, traffic, metric, interval) but not tenant_id or
// filters, which name things of one site. Keys: arrows and Home/End move through the links, Enter
// follows one, Escape closes and gives the focus back to the button; a click or focus outside closes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { manage, seg } from '../api/manage.js';
import type { WorkspaceSummary } from '../api/manage-types.js';
import type { Result } from '../api/read.js';
import { searchFromState } from '../dashboard/query.js';
import { dashboardState } from '../dashboard/url-state.js';
import { shown, useRead } from './use-read.js';

/** More sites than this: a filter box above the list. */
const FILTER_FROM = 7;
const PANEL_ID = 'site-switcher-panel';

interface SiteEntry {
  site_id: string;
  name: string;
  hostnames: string[];
}
interface Group {
  workspace: WorkspaceSummary;
  sites: Result<{ sites: SiteEntry[] }>;
}

function readGroups(workspaces: readonly WorkspaceSummary[]): Promise<Result<Group[]>> {
  return Promise.all(
    workspaces.map(async (workspace) => ({
      workspace,
      sites: await manage('GET', '/workspaces/{workspace_id}/sites', { path: { workspace_id: workspace.workspace_id } }),
    })),
  ).then((data) => ({ ok: true, data }));
}

export function SiteSwitcher({ siteId, name, workspaces }: { siteId: string; name: string; workspaces: readonly WorkspaceSummary[] }) {
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState(false);
  const [filter, setFilter] = useState('');
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const groups = shown(useRead(asked ? 'site-switcher' : null, () => readGroups(workspaces)));
  const all = groups?.ok ? groups.data : null;
  const count = all?.reduce((n, g) => n + (g.sites.ok ? g.sites.data.sites.length : 0), 0) ?? 0;
  const filtering = count > FILTER_FROM;
  const ready = all !== null;

  // whether it is open, as the key handler must see it: the handler bound by the last effect may still
  // be the one of the render before (effects run after a paint, late on a busy page), so a key pressed
  // right after Escape would otherwise be read as if the list were still open
  const isOpen = useRef(open);
  isOpen.current = open;
  const show = (value: boolean) => {
    isOpen.current = value;
    setOpen(value);
  };

  const close = (refocus: boolean) => {
    show(false);
    if (refocus) button.current?.focus();
  };

  // a press or a focus outside closes it
  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      if (e.target instanceof Node && !root.current?.contains(e.target)) show(false);
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('focusin', outside);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('focusin', outside);
    };
  }, [open]);

  const links = () => [...(root.current?.querySelectorAll<HTMLAnchorElement>(`#${PANEL_ID} a`) ?? [])];

  // once open and its sites are there, the focus goes in: the filter box, else the current site's link
  useEffect(() => {
    if (!open || !ready) return;
    const panel = root.current?.querySelector<HTMLElement>(`#${PANEL_ID}`);
    const target = panel?.querySelector<HTMLElement>('input') ?? panel?.querySelector<HTMLElement>('a[aria-current]') ?? links()[0];
    target?.focus();
  }, [open, ready]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && isOpen.current) {
      e.preventDefault();
      close(true);
      return;
    }
    if (!isOpen.current) {
      if (e.key === 'ArrowDown' && e.target === button.current) {
        e.preventDefault();
        setAsked(true);
        show(true);
      }
      return;
    }
    const list = links();
    if (!list.length) return;
    const at = list.indexOf(document.activeElement as HTMLAnchorElement);
    const input = e.target instanceof HTMLInputElement ? e.target : null;
    let next: HTMLElement | undefined;
    if (e.key === 'ArrowDown') next = at < 0 ? list[0] : list[(at + 1) % list.length];
    else if (e.key === 'ArrowUp')
      next =
        at === 0
          ? (root.current?.querySelector<HTMLElement>(`#${PANEL_ID} input`) ?? list[list.length - 1])
          : list[(at < 0 ? list.length : at) - 1];
    else if ((e.key === 'Home' || e.key === 'End') && !input) next = e.key === 'Home' ? list[0] : list[list.length - 1];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  // the keys, on the button and in the list: listened to on their box (a static element takes no JSX handler)
  useEffect(() => {
    const box = root.current;
    box?.addEventListener('keydown', onKeyDown);
    return () => box?.removeEventListener('keydown', onKeyDown);
  });

  const search = searchFromState({ ...dashboardState.value, tenantId: null, filters: [] }, location.search);
  const needle = filter.trim().toLowerCase();
  const matches = (s: SiteEntry) => !needle || s.name.toLowerCase().includes(needle) || s.hostnames.some((h) => h.includes(needle));
  const shownGroups = all?.map((g) => ({
    ...g,
    sites: g.sites.ok ? { ok: true as const, data: g.sites.data.sites.filter(matches) } : g.sites,
  }));
  const anyShown = shownGroups?.some((g) => !g.sites.ok || g.sites.data.length > 0);
  const grouped = workspaces.length > 1;

  return (
    <div class="site-switcher" ref={root}>
      <button
        ref={button}
        type="button"
        class="switcher-button"
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => {
          setAsked(true);
          show(!isOpen.current);
        }}
      >
        <span class="switcher-name">{name}</span>
        <span class="sr-only">: switch site</span>
        <svg class="switcher-chevron" viewBox="0 0 12 12" width="12" height="12" aria-hidden="true" focusable="false">
          <path d="M2.5 4.5 6 8l3.5-3.5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
        </svg>
      </button>
      <div id={PANEL_ID} class="switcher-panel" hidden={!open}>
        {!groups ? (
          <p class="switcher-note" role="status">
            Loading your sites…
          </p>
        ) : (
          <>
            {filtering ? (
              <label class="switcher-filter">
                <span class="sr-only">Filter the sites</span>
                <input type="search" placeholder="Filter sites" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
              </label>
            ) : null}
            <nav aria-label="Your sites">
              {shownGroups?.map((g) => {
                const labelId = `switcher-ws-${g.workspace.workspace_id}`;
                if (g.sites.ok && g.sites.data.length === 0) return null;
                return (
                  <div key={g.workspace.workspace_id} class="switcher-group">
                    {grouped ? (
                      <p class="switcher-group-name" id={labelId}>
                        {g.workspace.name}
                      </p>
                    ) : null}
                    {g.sites.ok ? (
                      <ul aria-labelledby={grouped ? labelId : undefined}>
                        {g.sites.data.map((s) => (
                          <li key={s.site_id}>
                            <a
                              href={`/app/sites/${seg(s.site_id)}${search}`}
                              aria-current={s.site_id === siteId ? 'page' : undefined}
                              data-site-id={s.site_id}
                            >
                              <span class="switcher-site-name">{s.name}</span>
                              {s.hostnames[0] ? <span class="switcher-host">{s.hostnames[0]}</span> : null}
                            </a>
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <p class="switcher-note switcher-failed">The sites of {g.workspace.name} could not be read.</p>
                    )}
                  </div>
                );
              })}
              {!anyShown ? <p class="switcher-note">{needle ? 'No site matches.' : 'No sites yet.'}</p> : null}
            </nav>
          </>
        )}
      </div>
    </div>
  );
}
