// The embed page's token comes in the URL fragment (`#token=...`), which browsers never send to a
// server: it is read once at start, kept in memory, and removed from the address bar and history. It
// must be an embed token (a JWT its host's backend minted); an API token is refused unused, since a
// page must never hold one. The claims are read here only to know what to draw and when it expires: the
// server checks the signature on every read.
export interface EmbedClaims {
  /** the embed key that signed it (header kid) */
  kid: string | null;
  siteId: string | null;
  tenantId: string | null;
  /** epoch seconds; null when absent (the server refuses it then) */
  exp: number | null;
}

export type EmbedBearer = { kind: 'embed'; token: string; claims: EmbedClaims } | { kind: 'api-token' } | { kind: 'malformed' };

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function json(part: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/** What a token handed to the page (in its fragment, or by its host page) is. */
export function embedBearerOf(token: string): EmbedBearer {
  if (token.startsWith('ff_live_')) return { kind: 'api-token' };
  if (!JWT.test(token)) return { kind: 'malformed' };
  const [head, body] = token.split('.').map(json);
  if (!head || !body) return { kind: 'malformed' };
  return {
    kind: 'embed',
    token,
    claims: {
      kid: str(head.kid),
      siteId: str(body.site_id),
      tenantId: str(body.tenant_id),
      exp: typeof body.exp === 'number' ? body.exp : null,
    },
  };
}

let taken: EmbedBearer | null | undefined;

export function takeEmbedBearer(): EmbedBearer | null {
  if (taken !== undefined) return taken;
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  taken = token ? embedBearerOf(token) : null;
  return taken;
}
