// Settings > Sites: every site of the workspace (site-card.tsx: its hostnames, domain proof, script tag,
// profile, status and deletion), the plan's sites used, and a form to add one with its hostnames and time zone, and optionally a domain
// scope (the TXT record that proves it is shown at once) and hostname patterns. A pasted address
// (https://www.example.com/pricing) is taken for its hostname, and the form shows what will be saved.
import { useEffect, useRef, useState } from 'preact/hooks';
import { manage, seg } from '../api/manage.js';
import type { CollectionProfile, SiteRecord, WorkspaceDetails } from '../api/manage-types.js';
import { Field, textOf } from '../ui/field.js';
import { DnsRecordFields } from './dns-record.js';
import { hostnamesOf } from './hostname-input.js';
import { ListState, listField, Section, SendForm, useManaged, usedOf } from './kit.js';
import { SiteCard } from './site-card.js';
import { TimeZoneSelect } from './time-zone-select.js';

export function SitesSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const sites = useManaged('/workspaces/{workspace_id}/sites', { path: { workspace_id: id } });
  const count = sites.result?.ok ? sites.result.data.sites.length : null;
  const [typed, setTyped] = useState('');
  const hosts = hostnamesOf(typed);
  const taken = hosts.some((h) => h.from !== h.hostname);
  const [deleted, setDeleted] = useState('');
  const said = useRef<HTMLParagraphElement>(null);
  // the card that held the focus is gone: the message about it takes it
  useEffect(() => {
    if (deleted) said.current?.focus();
  }, [deleted]);
  const onDeleted = (name: string) => {
    setDeleted(`${name} is deleted, with everything stored of it.`);
    sites.reload();
  };
  return (
    <Section
      id="sites"
      title="Sites"
      note={count !== null ? <span class="muted">{usedOf(count, ws.plan.max_sites)} sites of the plan</span> : null}
    >
      <p class="deleted-note" role="status" tabIndex={-1} ref={said}>
        {deleted}
      </p>
      <ListState listed={sites} label="sites">
        {(data) =>
          data.sites.length === 0 ? (
            <p class="empty">No sites yet: add the first one below.</p>
          ) : (
            <SiteCards
              sites={data.sites}
              canDelete={ws.workspace.role === 'owner'}
              onChange={() => {
                setDeleted('');
                sites.reload();
              }}
              onDeleted={onDeleted}
            />
          )
        }
      </ListState>
      <div class="panel form-panel">
        <SendForm
          title="Add a site"
          submitLabel="Add the site"
          send={(f) => {
            const scope = String(f.get('domain_scope') ?? '').trim();
            const patterns = listField(f.get('hostname_patterns'));
            return manage('POST', '/workspaces/{workspace_id}/sites', {
              path: { workspace_id: id },
              body: {
                name: textOf(f, 'name'),
                hostnames: hostnamesOf(String(f.get('hostnames') ?? '')).map((h) => h.hostname),
                // the radios offer only the document's profiles
                collection_profile: textOf(f, 'collection_profile') as CollectionProfile,
                ...(scope ? { domain_scope: scope } : {}),
                ...(patterns.length ? { hostname_patterns: patterns } : {}),
                timezone: textOf(f, 'timezone'),
              },
            });
          }}
          shown={(site) => (
            <>
              <p>
                <strong>{site.name}</strong> is added: its card above shows the script tag its pages load.{' '}
                <a href={`/app/sites/${seg(site.site_id)}`}>Open its dashboard</a>.
              </p>
              {site.verification ? (
                <>
                  <p>
                    Publish this TXT record at your DNS provider, then press “Verify now” on the site's card above (under Sites): until then
                    only its exact hostnames collect.
                  </p>
                  <DnsRecordFields record={site.verification} />
                </>
              ) : null}
            </>
          )}
          after={() => {
            setTyped('');
            sites.reload();
          }}
        >
          <Field label="Name">
            <input name="name" required maxLength={200} />
          </Field>
          <Field label="Hostnames, separated by commas">
            <input
              name="hostnames"
              required
              placeholder="example.com, www.example.com"
              autocomplete="off"
              aria-describedby="hostnames-saved"
              onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            />
          </Field>
          <p class="note" id="hostnames-saved" aria-live="polite">
            {taken ? `Saved as ${hosts.map((h) => h.hostname).join(', ')}: the hostname of each address, without https:// or a path.` : ''}
          </p>
          <fieldset>
            <legend>Collection profile</legend>
            <label class="check">
              <input type="radio" name="collection_profile" value="strict" checked /> Strict: pages, sources, countries, devices and simple
              actions
            </label>
            <label class="check">
              <input type="radio" name="collection_profile" value="extended" /> Extended: also regions, cities, UTM sources and campaigns,
              goal conversions and every kind of action
            </label>
          </fieldset>
          <Field label="Time zone (UTC unless you choose another)">
            <TimeZoneSelect name="timezone" value="UTC" />
          </Field>
          <Field label="Domain scope (optional): collect for this domain and every subdomain once verified">
            <input name="domain_scope" placeholder="example.com" autocomplete="off" />
          </Field>
          <Field label="Hostname patterns (optional), inside your domains, separated by commas">
            <input name="hostname_patterns" placeholder="*.shop.example.com" autocomplete="off" />
          </Field>
        </SendForm>
      </div>
    </Section>
  );
}

/**
 * The cards, with the collection script's address as the server says it (tracker_script_url, the same for
 * every site of the server, read once with the first site); if that read fails, this page's origin.
 */
function SiteCards({
  sites,
  canDelete,
  onChange,
  onDeleted,
}: {
  sites: SiteRecord[];
  canDelete: boolean;
  onChange(): void;
  onDeleted(name: string): void;
}) {
  const read = useManaged('/sites/{site_id}', { path: { site_id: sites[0].site_id } });
  const scriptUrl = read.result ? (read.result.ok ? read.result.data.tracker_script_url : `${location.origin}/js/script.js`) : null;
  return (
    <div class="site-cards">
      {sites.map((s) => (
        <SiteCard key={s.site_id} site={s} scriptUrl={scriptUrl} canDelete={canDelete} onChange={onChange} onDeleted={onDeleted} />
      ))}
    </div>
  );
}
