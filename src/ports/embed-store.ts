// Embed keys and share links of the control plane. An embed key stores no secret of its own (its secret is
// derived from a control-plane secret and its id: docs/decisions/embeds-and-share-links.md "Embed key secrets"); a share link
// stores its slug's sha256 and its password's argon2 hash, never either in clear.

export interface EmbedKey {
  id: string;
  workspaceId: string;
  /** the origins that may frame the embed page (CSP frame-ancestors); empty: none */
  origins: string[];
  createdAt: string;
  revokedAt: string | null;
}

export interface ShareLink {
  id: string;
  workspaceId: string;
  siteId: string;
  /** null: the whole site */
  tenantId: string | null;
  /** argon2id PHC string; null: no password */
  passwordHash: string | null;
  /** null: never expires */
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewShareLink {
  siteId: string;
  tenantId: string | null;
  slugHash: string;
  passwordHash: string | null;
  expiresAt: string | null;
}

export interface EmbedStore {
  /** NOT_FOUND when the workspace does not exist. */
  createEmbedKey(input: { workspaceId: string; origins: string[] }): Promise<EmbedKey>;
  getEmbedKey(id: string): Promise<EmbedKey | null>;
  /** Every key of the workspace, revoked ones included, oldest first. */
  listEmbedKeys(workspaceId: string): Promise<EmbedKey[]>;
  /** False when there is no such key; revoking twice keeps the first time. */
  revokeEmbedKey(id: string, at: string): Promise<boolean>;

  /** NOT_FOUND (site, or a tenant not of that site); CONFLICT (the slug's hash exists). */
  createShareLink(input: NewShareLink): Promise<ShareLink>;
  getShareLink(id: string): Promise<ShareLink | null>;
  /** The link of this slug hash, whatever its state (the caller decides what revoked or expired means). */
  findShareLinkBySlugHash(slugHash: string): Promise<ShareLink | null>;
  /** Every link of the site, revoked ones included, oldest first. */
  listShareLinks(siteId: string): Promise<ShareLink[]>;
  /** False when there is no such link; revoking twice keeps the first time. */
  revokeShareLink(id: string, at: string): Promise<boolean>;
}
