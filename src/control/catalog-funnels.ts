// Saved funnels of the catalog (`footfall funnel`, the management API, POST /api/v2/funnel's
// funnel_id): a site's named list of steps. Dialect-independent like catalog-store.ts, which
// delegates here. A funnel is checked by the domain's own step rules, with the same messages over
// every path; its steps are stored as the JSON the API speaks.
import type { Kysely, Selectable } from 'kysely';
import { type FunnelStep, stepJson, stepOf, stepsOf } from '../domain/funnels.js';
import { newId, type RandomBytes } from '../domain/tokens.js';
import { CatalogError, type Funnel, type Site } from '../ports/catalog-store.js';
import type { ControlDB, FunnelsTable } from './schema.js';
import { checkName } from './validation.js';

export interface FunnelsContext {
  db: Kysely<ControlDB>;
  now(): Date;
  random: RandomBytes;
  getSite(id: string): Promise<Site | null>;
}

function toFunnel(r: Selectable<FunnelsTable>): Funnel {
  const steps = (JSON.parse(r.steps) as unknown[]).map((s) => stepOf(s) as FunnelStep);
  return {
    id: r.id,
    siteId: r.site_id,
    workspaceId: r.workspace_id,
    name: r.name,
    steps,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A step given to the catalog as its JSON; anything but a page or event step stays as it is, for stepsOf to refuse. */
function asJson(s: unknown): unknown {
  const step = s as Partial<Record<string, unknown>> | null;
  if (step?.kind === 'page') return { page: step.pattern };
  if (step?.kind === 'event') return { event: step.name };
  return s;
}

/** The steps as stored: checked as a request's are (2 to 8, each a page pattern or an event name). */
function checkSteps(steps: readonly FunnelStep[]): string {
  const r = stepsOf(Array.isArray(steps) ? steps.map(asJson) : steps);
  if ('problem' in r) throw new CatalogError('INVALID', `funnel ${r.field}: ${r.problem}`);
  return JSON.stringify(r.map(stepJson));
}

export async function createFunnel(ctx: FunnelsContext, input: { siteId: string; name: string; steps: FunnelStep[] }): Promise<Funnel> {
  const name = checkName('funnel name', input.name);
  const steps = checkSteps(input.steps);
  const site = typeof input.siteId === 'string' ? await ctx.getSite(input.siteId) : null;
  if (!site) throw new CatalogError('NOT_FOUND', `unknown site "${String(input.siteId)}"`);
  const now = ctx.now().toISOString();
  const row: FunnelsTable = {
    id: newId('funnel', ctx.random),
    site_id: site.id,
    workspace_id: site.workspaceId,
    name,
    steps,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('funnels').values(row).execute();
  return toFunnel(row);
}

export async function listFunnels(ctx: FunnelsContext, siteId: string): Promise<Funnel[]> {
  const rows = await ctx.db.selectFrom('funnels').selectAll().where('site_id', '=', siteId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toFunnel);
}

export async function getFunnel(ctx: FunnelsContext, id: string): Promise<Funnel | null> {
  const row = await ctx.db.selectFrom('funnels').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toFunnel(row) : null;
}

export async function updateFunnel(ctx: FunnelsContext, id: string, patch: { name?: string; steps?: FunnelStep[] }): Promise<Funnel> {
  if (patch.name === undefined && patch.steps === undefined) throw new CatalogError('INVALID', 'nothing to change on the funnel');
  const current = await getFunnel(ctx, id);
  if (!current) throw new CatalogError('NOT_FOUND', `unknown funnel "${String(id)}"`);
  const name = checkName('funnel name', patch.name ?? current.name);
  const steps = checkSteps(patch.steps ?? current.steps);
  // updatedAt moves even when two changes share a millisecond (as a goal's)
  const updatedAt = new Date(Math.max(ctx.now().getTime(), Date.parse(current.updatedAt) + 1)).toISOString();
  await ctx.db.updateTable('funnels').set({ name, steps, updated_at: updatedAt }).where('id', '=', id).execute();
  return { ...current, name, steps: (JSON.parse(steps) as unknown[]).map((s) => stepOf(s) as FunnelStep), updatedAt };
}

export async function deleteFunnel(ctx: FunnelsContext, id: string): Promise<boolean> {
  const r = await ctx.db.deleteFrom('funnels').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
