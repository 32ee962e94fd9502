// Embed keys and share links in the API's snake_case: what the commands print with --json and the
// management API answers. Neither ever carries a secret, a slug or a password hash.
import type { EmbedKey, ShareLink } from '../../ports/embed-store.js';
import { shareState } from './share-links.js';

export const embedKeyJson = (k: EmbedKey) => ({
  key_id: k.id,
  workspace_id: k.workspaceId,
  origins: k.origins,
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
});

export const shareLinkJson = (s: ShareLink, now: Date) => ({
  share_id: s.id,
  site_id: s.siteId,
  tenant_id: s.tenantId,
  password: s.passwordHash !== null,
  expires_at: s.expiresAt,
  created_at: s.createdAt,
  revoked_at: s.revokedAt,
  state: shareState(s, now),
});
