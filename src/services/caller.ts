// Who is calling: the token, its workspace and the API policy in force for it.
import type { ApiPolicy } from '../domain/plans.js';
import type { Token, Workspace } from '../ports/catalog-store.js';

export interface Caller {
  token: Token;
  workspace: Workspace;
  policy: ApiPolicy;
}
