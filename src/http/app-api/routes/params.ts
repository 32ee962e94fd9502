// Path parameters of the management routes.
import { Type } from '@sinclair/typebox';
import { Id } from '../schemas.js';

export const WorkspaceParams = Type.Object({ workspace_id: Id('Workspace id') });
export const WorkspaceUserParams = Type.Object({ workspace_id: Id('Workspace id'), user_id: Id('User id of a member') });
export const WorkspaceInvitationParams = Type.Object({ workspace_id: Id('Workspace id'), invitation_id: Id('Invitation id') });
export const WorkspaceTokenParams = Type.Object({ workspace_id: Id('Workspace id'), token_id: Id('Token id') });
export const SiteParams = Type.Object({ site_id: Id('Site id') });
export const TenantParams = Type.Object({ tenant_id: Id('Tenant id') });
export const GoalParams = Type.Object({ goal_id: Id('Goal id') });
/** Lists of tenants and goals: one site of the workspace, or all of them. */
export const SiteFilter = Type.Object({ site_id: Type.Optional(Id('Only this site of the workspace')) }, { additionalProperties: false });
export const FunnelParams = Type.Object({ funnel_id: Id('Funnel id') });
export const SubscriptionParams = Type.Object({ subscription_id: Id('Report subscription id') });
