// The control plane's side of the data lifecycle (docs/product.md §10): removing sites and workspaces from
// the catalog while remembering the event-store work left to do, and the lease of the daily purge.
// Implementation: control/data-lifecycle.ts (SQLite and PostgreSQL).

/** A site gone from the catalog whose stored events are still to be deleted from the event store. */
export interface PendingSiteDeletion {
  siteId: string;
  workspaceId: string;
  /** ISO instant of the delete command */
  requestedAt: string;
}

export interface LifecycleControl {
  /**
   * Removes the site's catalog rows (hostnames, patterns, tenants, goals) and records its pending deletion, in
   * one transaction: from its commit the id answers like an unknown one and the hostnames are free. A site
   * already removed and still pending answers its pending deletion; null when neither.
   */
  removeSite(siteId: string): Promise<PendingSiteDeletion | null>;
  /**
   * The same for a workspace: its sites, members, invitations, tokens, domains and usage rows go in one
   * transaction, each site recorded as pending. A workspace already removed answers its pending sites
   * (possibly none); null when it never existed or is wholly gone.
   */
  removeWorkspace(workspaceId: string): Promise<PendingSiteDeletion[] | null>;
  /** Every deletion still pending, oldest first. */
  pendingSiteDeletions(): Promise<PendingSiteDeletion[]>;
  /** Forgets a pending deletion once the event store holds nothing of the site. */
  finishSiteDeletion(siteId: string): Promise<void>;
  /**
   * Takes the named lease for `ttlMs` when no live holder has it (one process at a time runs the job);
   * false when another holder's lease has not expired.
   */
  takeLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back, when `owner` still holds it. */
  releaseLease(name: string, owner: string): Promise<void>;
}
