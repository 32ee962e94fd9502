// The plan history of workspaces (migration 005): a row when a workspace is created and one each time
// its plan or api policy changes, written in the transaction that makes the change.
import type { Kysely, Transaction } from 'kysely';
import type { ApiPolicyOverrides, PlanId } from '../domain/plans.js';
import type { PlanChange } from '../ports/catalog-store.js';
import type { ControlDB, WorkspacesTable } from './schema.js';

type Db = Kysely<ControlDB> | Transaction<ControlDB>;

/** Inserts a new workspace and its first plan (version 1, from its creation). */
export async function insertWorkspace(trx: Transaction<ControlDB>, row: WorkspacesTable): Promise<void> {
  await trx.insertInto('workspaces').values(row).execute();
  await trx
    .insertInto('workspace_plans')
    .values({ workspace_id: row.id, version: 1, effective_at: row.created_at, plan: row.plan, api_policy: row.api_policy })
    .execute();
}

/**
 * Records the plan and api policy a workspace has from `at` on. Call it in the transaction that
 * changes them, after the update of the workspace row (whose lock orders concurrent changes).
 */
export async function recordPlanChange(
  trx: Transaction<ControlDB>,
  workspaceId: string,
  plan: string,
  apiPolicy: string,
  at: string,
): Promise<void> {
  const last = await trx
    .selectFrom('workspace_plans')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  const version = Number(last?.version ?? 0) + 1;
  await trx
    .insertInto('workspace_plans')
    .values({ workspace_id: workspaceId, version, effective_at: at, plan, api_policy: apiPolicy })
    .execute();
}

export async function planHistory(db: Db, workspaceId: string): Promise<PlanChange[]> {
  const rows = await db.selectFrom('workspace_plans').selectAll().where('workspace_id', '=', workspaceId).orderBy('version').execute();
  return rows.map((r) => ({
    effectiveAt: r.effective_at,
    plan: r.plan as PlanId,
    apiPolicy: JSON.parse(r.api_policy) as ApiPolicyOverrides,
  }));
}
