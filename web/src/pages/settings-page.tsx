// /app/settings/<workspace_id>/<section>: a workspace's sites, tenants, goals, tokens, members and
// usage over the management API, for its owners and admins (the API refuses viewers with 403, shown
// in words). Thin on purpose: lists, and the forms that create what the command line creates.
import { manage, readSession } from '../api/manage.js';
import { AppFrame, Notice } from '../ui/page-shell.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { PlainTable } from '../ui/plain-table.js';
import { shown, useRead } from '../ui/use-read.js';
import { CreateSite, CreateToken, Invite } from './settings-forms.js';
import { EMBEDS_SECTION, EmbedSettings } from './settings-embeds.js';

type Row = Record<string, unknown>;
interface Section {
  label: string;
  /** the member of the answer that holds the rows */
  list: string;
  columns: readonly (readonly [key: string, label: string])[];
}

const SECTIONS: Record<string, Section> = {
  sites: { label: 'Sites', list: 'sites', columns: [['name', 'Name'], ['hostnames', 'Hostnames'], ['collection_profile', 'Profile'], ['status', 'Status']] },
  tenants: { label: 'Tenants', list: 'tenants', columns: [['name', 'Name'], ['slug', 'Slug'], ['site_id', 'Site'], ['status', 'Status']] },
  goals: { label: 'Goals', list: 'goals', columns: [['name', 'Name'], ['type', 'Type'], ['pattern', 'Pattern'], ['site_id', 'Site']] },
  tokens: { label: 'API tokens', list: 'tokens', columns: [['token_id', 'Token'], ['scopes', 'Scopes'], ['created_at', 'Created'], ['revoked_at', 'Revoked']] },
  members: { label: 'Members', list: 'members', columns: [['email', 'Email'], ['name', 'Name'], ['role', 'Role'], ['joined_at', 'Joined']] },
  usage: { label: 'Usage', list: '', columns: [['period', 'Month'], ['units_used', 'API units used'], ['units_included', 'Included'], ['units_overage', 'Overage'], ['reset_at', 'Resets']] },
};

function cell(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

export function SettingsPage({ workspaceId, section }: { workspaceId: string; section: string }) {
  const session = shown(useRead('session', readSession));
  const spec = SECTIONS[section];
  const workspace = session?.ok ? session.data.workspaces.find((w) => w.workspace_id === workspaceId) : undefined;
  const base = `/app/settings/${encodeURIComponent(workspaceId)}`;
  return (
    <AppFrame session={session?.ok ? session.data : null} title={workspace ? `${workspace.name} settings` : 'Settings'}>
      <h1>{workspace?.name ?? 'Workspace'} settings</h1>
      <nav class="tabs settings-nav" aria-label="Settings">
        {Object.entries(SECTIONS).map(([id, s]) => (
          <a key={id} href={`${base}/${id}`} aria-current={id === section ? 'page' : undefined}>
            {s.label}
          </a>
        ))}
        <a href={`${base}/${EMBEDS_SECTION.id}`} aria-current={section === EMBEDS_SECTION.id ? 'page' : undefined}>
          {EMBEDS_SECTION.label}
        </a>
      </nav>
      {spec ? (
        <SectionView workspaceId={workspaceId} id={section} spec={spec} />
      ) : section === EMBEDS_SECTION.id ? (
        <EmbedSettings workspaceId={workspaceId} />
      ) : (
        <Notice title="No such settings page">{null}</Notice>
      )}
    </AppFrame>
  );
}

function SectionView({ workspaceId, id, spec }: { workspaceId: string; id: string; spec: Section }) {
  const path = `/workspaces/${encodeURIComponent(workspaceId)}/${id}`;
  const result = shown(useRead(path, () => manage<Row>('GET', path)));
  let body;
  if (!result) body = <Skeleton rows={4} label={spec.label} />;
  else if (!result.ok) body = <Problem failure={result.error} />;
  else {
    const rows = (spec.list ? (result.data[spec.list] as Row[] | undefined) : [result.data]) ?? [];
    const seats = result.data.seats as { used: number; limit: number | null } | undefined;
    body = (
      <>
        {seats ? <p>Seats: {seats.used} of {seats.limit ?? 'unlimited'}</p> : null}
        <PlainTable label={spec.label} head={spec.columns.map(([, label]) => label)} rows={rows.map((row) => spec.columns.map(([k]) => cell(row[k])))} />
      </>
    );
  }
  return (
    <section class="panel" aria-label={spec.label}>
      {body}
      {id === 'sites' ? <CreateSite workspaceId={workspaceId} /> : null}
      {id === 'tokens' ? <CreateToken workspaceId={workspaceId} /> : null}
      {id === 'members' ? <Invite workspaceId={workspaceId} /> : null}
    </section>
  );
}
