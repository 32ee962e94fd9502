// The bearer of the embed page comes in the URL fragment (`#token=...`), which browsers never send to
// a server: it is read once at start, kept in memory, and removed from the address bar and history.
// An embed token (a JWT) names its site and maybe its tenant; its claims are read here only to know
// what to draw (the server checks the signature on every read). An API token works too: the page then
// needs `site_id` in its query and offers what the token may read.
export interface EmbedBearer {
  token: string;
  /** the claims of an embed token; null for an API token */
  claims: { site_id?: string; tenant_id?: string } | null;
}

function claimsOf(token: string): EmbedBearer['claims'] {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(json);
    if (typeof claims !== 'object' || claims === null) return null;
    const { site_id, tenant_id } = claims as Record<string, unknown>;
    return { ...(typeof site_id === 'string' ? { site_id } : {}), ...(typeof tenant_id === 'string' ? { tenant_id } : {}) };
  } catch {
    return null;
  }
}

let taken: EmbedBearer | null | undefined;

export function takeEmbedBearer(): EmbedBearer | null {
  if (taken !== undefined) return taken;
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  taken = token ? { token, claims: claimsOf(token) } : null;
  return taken;
}
