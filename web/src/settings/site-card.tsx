// One site in the settings: its hostnames, domain scope and patterns with where each proof stands (the
// TXT record to publish and a button to verify it now), the script tag its pages load, its collection
// profile (a switch applies from now on, never to events already stored), its time zone (the dashboard and
// the query API count its days in it), its status (a suspended site keeps its data and stops collecting and
// answering numbers) and, for owners, its deletion after typing its name.
import { useState } from 'preact/hooks';
import { manage, seg, type ManageBody } from '../api/manage.js';
import type { SiteRecord } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { scriptTag } from '../dashboard/live.js';
import { CopyField } from '../ui/copy-field.js';
import { Problem } from '../ui/panel-state.js';
import { DnsRecordFields } from './dns-record.js';
import { ActionButton, when } from './kit.js';
import { TimeZoneSelect } from './time-zone-select.js';

export function SiteCard({
  site,
  scriptUrl,
  canDelete,
  onChange,
  onDeleted,
}: {
  site: SiteRecord;
  /** the collection script of this server; null while it is being read */
  scriptUrl: string | null;
  /** owners delete sites here; admins are told who can */
  canDelete: boolean;
  onChange(): void;
  onDeleted(name: string): void;
}) {
  const patch = (body: ManageBody<'PATCH', '/sites/{site_id}'>) => () =>
    manage('PATCH', '/sites/{site_id}', { path: { site_id: site.site_id }, body });
  const other = site.collection_profile === 'strict' ? 'extended' : 'strict';
  const suspended = site.status === 'SUSPENDED';
  const pendingSwitch = site.collection_profile_effective_at !== null && Date.parse(site.collection_profile_effective_at) > Date.now();
  return (
    <article class="panel site-card" aria-labelledby={`site-${site.site_id}`} data-site={site.site_id}>
      <header class="panel-head">
        <h3 id={`site-${site.site_id}`}>
          <a href={`/app/sites/${seg(site.site_id)}`}>{site.name}</a>
        </h3>
        <span class={`badge${suspended ? ' off' : ''}`}>{suspended ? 'Suspended' : 'Collecting'}</span>
      </header>
      <dl class="facts">
        <dt>Hostnames</dt>
        <dd>{site.hostnames.join(', ')}</dd>
        {site.domain_scope ? (
          <>
            <dt>Domain scope</dt>
            <dd>{site.domain_scope} and every subdomain</dd>
          </>
        ) : null}
        {site.hostname_patterns.length ? (
          <>
            <dt>Patterns</dt>
            <dd>{site.hostname_patterns.join(', ')}</dd>
          </>
        ) : null}
        <dt>Profile</dt>
        <dd>
          {site.collection_profile}
          {pendingSwitch ? ` from ${when(site.collection_profile_effective_at)}` : ''}
        </dd>
        <dt>Time zone</dt>
        <dd data-timezone={site.timezone}>{site.timezone}</dd>
        <dt>Site id</dt>
        <dd>
          <code>{site.site_id}</code>
        </dd>
      </dl>
      {site.released_hostnames.length ? (
        <p class="note">
          No longer collecting for {site.released_hostnames.map((r) => r.hostname).join(', ')}: another workspace proved it holds the
          domain.
        </p>
      ) : null}
      {site.domains.map((d) => (
        <DomainProof key={d.domain} site={site} domain={d} onChange={onChange} />
      ))}
      <Snippet site={site} scriptUrl={scriptUrl} />
      <TimeZoneForm site={site} onChange={onChange} />
      <div class="card-actions">
        <ActionButton
          label={`Switch to ${other}`}
          run={patch({ collection_profile: other })}
          after={onChange}
          confirm={`Collect with the ${other} profile from now on? Events already stored keep their profile.`}
        />
        {suspended ? (
          <ActionButton label="Resume collecting" run={patch({ status: 'ACTIVE' })} after={onChange} />
        ) : (
          <ActionButton
            label="Suspend"
            run={patch({ status: 'SUSPENDED' })}
            after={onChange}
            confirm="Suspend this site? It stops collecting and its dashboard stops answering until resumed; its data stays."
          />
        )}
      </div>
      {canDelete ? (
        <DeleteSite site={site} onDeleted={onDeleted} />
      ) : (
        <p class="note site-delete">Only the workspace's owners can delete a site.</p>
      )}
    </article>
  );
}

/** The tag the site's pages load, for its first hostname, as the dashboard of a site without events shows it. */
function Snippet({ site, scriptUrl }: { site: SiteRecord; scriptUrl: string | null }) {
  const domain = site.hostnames[0] ?? site.domain_scope ?? '';
  return (
    <div class="snippet">
      <h4 id={`snippet-${site.site_id}`}>Tracking snippet</h4>
      <p class="note">
        Paste it into the <code>&lt;head&gt;</code> of every page of the site, on each of its hostnames.
      </p>
      {scriptUrl ? (
        <CopyField label="Script tag" value={scriptTag(domain, scriptUrl)} block />
      ) : (
        <p class="note">Reading the script address…</p>
      )}
    </div>
  );
}

/**
 * Deleting the site (owners): a button opens the confirmation in the card, which says what goes and asks
 * for the site's name; the red button is enabled once the typed name is the site's, as the API wants it.
 */
function DeleteSite({ site, onDeleted }: { site: SiteRecord; onDeleted(name: string): void }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const matches = typed === site.name;
  const close = () => {
    setOpen(false);
    setTyped('');
    setFailure(null);
  };
  const remove = async (e: Event) => {
    e.preventDefault();
    if (!matches) return;
    setBusy(true);
    const r = await manage('DELETE', '/sites/{site_id}', { path: { site_id: site.site_id }, body: { name: typed } });
    setBusy(false);
    if (!r.ok) return setFailure(r.error);
    onDeleted(site.name);
  };
  if (!open)
    return (
      <div class="site-delete">
        <button type="button" class="button secondary danger-outline" onClick={() => setOpen(true)}>
          Delete this site
        </button>
      </div>
    );
  const titleId = `delete-${site.site_id}`;
  const inputId = `delete-name-${site.site_id}`;
  return (
    <form class="site-delete delete-confirm" aria-labelledby={titleId} onSubmit={remove}>
      <h4 id={titleId}>Delete {site.name}?</h4>
      <p>Every event, goal, funnel, tenant, share link and report subscription of this site is deleted with it. This cannot be undone.</p>
      <label class="field-label" for={inputId}>
        Type <strong>{site.name}</strong> to confirm
      </label>
      <input
        id={inputId}
        name="confirm_name"
        autocomplete="off"
        spellcheck={false}
        value={typed}
        onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        // biome-ignore lint/a11y/noAutofocus: focus moves to the field the person just opened, so the keyboard types the name
        autoFocus
      />
      <div class="card-actions">
        <button type="submit" class="button danger" disabled={!matches || busy}>
          {busy ? 'Deleting…' : `Delete ${site.name}`}
        </button>
        <button type="button" class="quiet-button" onClick={close}>
          Cancel
        </button>
      </div>
      {failure ? <Problem failure={failure} title="Not deleted" alert /> : null}
    </form>
  );
}

/** The zone is one field of the site: saved alone, as admins and owners change any setting of it. */
function TimeZoneForm({ site, onChange }: { site: SiteRecord; onChange(): void }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const id = `timezone-${site.site_id}`;
  const save = async (e: Event) => {
    e.preventDefault();
    const timezone = String(new FormData(e.target as HTMLFormElement).get('timezone') ?? '');
    setBusy(true);
    const r = await manage('PATCH', '/sites/{site_id}', { path: { site_id: site.site_id }, body: { timezone } });
    setBusy(false);
    setFailure(r.ok ? null : r.error);
    setSaved(r.ok ? r.data.timezone : null);
    if (r.ok) onChange();
  };
  return (
    <form class="form zone-form" onSubmit={save}>
      <label class="field-label" for={id}>
        Time zone
      </label>
      <div class="zone-row">
        {/* keyed by the saved value, so that a reload shows what the server holds */}
        <TimeZoneSelect key={site.timezone} id={id} name="timezone" value={site.timezone} />
        <button type="submit" class="button secondary" disabled={busy}>
          {busy ? 'Saving…' : 'Save time zone'}
        </button>
      </div>
      <p class="note">The site's reports are to count its days in this zone; until then they count UTC days.</p>
      {saved ? (
        <p class="note" role="status">
          Saved: {saved}.
        </p>
      ) : null}
      {failure ? <Problem failure={failure} title="Not saved" alert /> : null}
    </form>
  );
}

function DomainProof({ site, domain, onChange }: { site: SiteRecord; domain: SiteRecord['domains'][number]; onChange(): void }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    const r = await manage('POST', '/sites/{site_id}/verify', { path: { site_id: site.site_id } });
    setBusy(false);
    setFailure(r.ok ? null : r.error);
    if (r.ok) onChange();
  };
  if (domain.verified) {
    return (
      <p class="proof verified" data-domain={domain.domain}>
        <span aria-hidden="true">✓</span> {domain.domain} is verified ({when(domain.verified_at)}).
      </p>
    );
  }
  return (
    <div class="proof" data-domain={domain.domain}>
      <p>
        <strong>{domain.domain}</strong> is not verified yet
        {domain.claimed_by_another_workspace ? ': another workspace has proven it, so nothing inside it collects here' : ''}. Publish this
        TXT record at your DNS provider, then verify.
      </p>
      <DnsRecordFields record={domain.verification} />
      <div class="card-actions">
        <button type="button" class="button" disabled={busy} onClick={verify}>
          {busy ? 'Looking the record up…' : 'Verify now'}
        </button>
      </div>
      {failure ? <Problem failure={inWords(failure, domain.verification.name)} title="Not verified" alert /> : null}
    </div>
  );
}

/**
 * A failed lookup said once, with what to do: the API's message, its title and its details (found,
 * retryable) all tell the same fact, so the card says it in one sentence of its own.
 */
function inWords(failure: Failure, name: string): Failure {
  if (failure.code !== 'SITE_DNS_VERIFICATION_FAILED') return failure;
  const found = Array.isArray(failure.details?.found) ? (failure.details.found as string[]) : [];
  const again = 'then press “Verify now” again (DNS changes can take a while to show).';
  const message =
    failure.details?.retryable === true
      ? `No DNS server answered for ${name}: press “Verify now” again in a moment.`
      : found.length
        ? `${name} holds other TXT values (${found.join(', ')}), not the record value above: add that value at your DNS provider, ${again}`
        : `No TXT value was found under ${name}: publish the record above at your DNS provider, ${again}`;
  return { ...failure, message };
}
