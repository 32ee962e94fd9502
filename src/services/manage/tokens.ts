// API tokens of a workspace (admins and owners): a secret is made here and shown once, by create or
// rotate; the store keeps only its sha256, and lists never show either.
import { randomBytes } from 'node:crypto';
import { generateSecret, hashSecret, type RandomBytes } from '../../domain/tokens.js';
import type { Token } from '../../ports/catalog-store.js';
import type { TokenScope } from '../../domain/access.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

export interface TokenInput {
  scopes: TokenScope[];
  siteIds?: string[] | null;
  tenantIds?: string[] | null;
  /** what it is for; absent or null: unnamed */
  name?: string | null;
}

export async function listTokens(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess): Promise<Token[]> {
  requireRole(access, 'admin');
  return deps.catalog.listTokens(access.workspace.id);
}

export async function createToken(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess,
  input: TokenInput,
  random: RandomBytes = randomBytes,
): Promise<{ token: Token; secret: string }> {
  requireRole(access, 'admin');
  const secret = generateSecret(random);
  const token = await deps.catalog.createToken({
    workspaceId: access.workspace.id,
    scopes: input.scopes,
    siteIds: input.siteIds ?? null,
    tenantIds: input.tenantIds ?? null,
    secretHash: hashSecret(secret),
    name: input.name ?? null,
  });
  return { token, secret };
}

export async function revokeToken(deps: Pick<ManageDeps, 'catalog' | 'clock'>, access: WorkspaceAccess & { token: Token }): Promise<Token> {
  requireRole(access, 'admin');
  if (!(await deps.catalog.revokeToken(access.token.id, deps.clock.now().toISOString()))) throw notFound('token', access.token.id);
  return (await deps.catalog.getToken(access.token.id)) ?? access.token;
}

/** Names the token, or with null leaves it unnamed (a revoked one too: its record stays listed). */
export async function renameToken(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { token: Token },
  name: string | null,
): Promise<Token> {
  requireRole(access, 'admin');
  return deps.catalog.renameToken(access.token.id, name);
}

export async function rotateToken(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { token: Token },
  random: RandomBytes = randomBytes,
): Promise<{ token: Token; secret: string }> {
  requireRole(access, 'admin');
  const secret = generateSecret(random);
  return { token: await deps.catalog.rotateToken(access.token.id, hashSecret(secret)), secret };
}
