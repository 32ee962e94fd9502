// /embed?key=<key_id>#token=<jwt>: the dashboard of one site (and tenant) for an iframe, without the
// dashboard's frame or settings. It reads /v1 with the embed token of its fragment (embed-token.ts), takes
// the view's state from its query like the dashboard, and talks to its host page, the origins of its
// embed key only (the server put them in the page and in its frame-ancestors):
//   to the host   { type: 'footfall:height', height }       its height in CSS pixels, on every change
//                 { type: 'footfall:token-expired' }        the token expired: send a fresh one
//   from the host { type: 'footfall:token', token: '<jwt>' } a fresh token (same key): the numbers come back
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { forgetReads } from '../api/read-cache.js';
import { bearerReader } from '../api/reader.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { Notice } from '../ui/page-shell.js';
import { embedBearerOf, takeEmbedBearer, type EmbedBearer } from './embed-token.js';

export const HEIGHT_MESSAGE = 'footfall:height';
export const EXPIRED_MESSAGE = 'footfall:token-expired';
export const TOKEN_MESSAGE = 'footfall:token';

interface EmbedMeta {
  key: 'missing' | 'unknown' | 'active';
  key_id?: string;
  origins?: string[];
}

function embedMeta(): EmbedMeta {
  try {
    const content = document.querySelector('meta[name="footfall-embed"]')?.getAttribute('content');
    return content ? (JSON.parse(content) as EmbedMeta) : { key: 'missing' };
  } catch {
    return { key: 'missing' };
  }
}

/** Posts to the host page if it is one of the key's origins (the one the browser names, where it says). */
function postToHost(origins: readonly string[], message: unknown): void {
  if (window.parent === window || origins.length === 0) return;
  const parent = location.ancestorOrigins?.[0];
  for (const origin of parent !== undefined ? origins.filter((o) => o === parent) : origins) window.parent.postMessage(message, origin);
}

function usePostHeight(origins: readonly string[]): void {
  useEffect(() => {
    let last = -1;
    const post = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      postToHost(origins, { type: HEIGHT_MESSAGE, height });
    };
    const observer = new ResizeObserver(post);
    observer.observe(document.documentElement);
    post();
    return () => observer.disconnect();
  }, [origins]);
}

/** A token handed over by the host page (a message from one of the key's origins), once it is an embed token of the same key. */
function useFreshTokens(
  origins: readonly string[],
  keyId: string | undefined,
  accept: (bearer: EmbedBearer & { kind: 'embed' }) => void,
): void {
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.source !== window.parent || !origins.includes(e.origin)) return;
      const data = e.data as { type?: unknown; token?: unknown } | null;
      if (!data || data.type !== TOKEN_MESSAGE || typeof data.token !== 'string') return;
      const next = embedBearerOf(data.token);
      if (next.kind === 'embed' && next.claims.kid === keyId) accept(next);
    };
    addEventListener('message', onMessage);
    return () => removeEventListener('message', onMessage);
  }, [origins, keyId]);
}

const NO_ORIGINS: readonly string[] = [];

export function EmbedPage() {
  const meta = useMemo(embedMeta, []);
  const origins = meta.key === 'active' ? (meta.origins ?? NO_ORIGINS) : NO_ORIGINS;
  const [bearer, setBearer] = useState<EmbedBearer | null>(() => takeEmbedBearer());
  const [generation, setGeneration] = useState(0);
  const [refusal, setRefusal] = useState<{ expired: boolean; message: string } | null>(null);
  usePostHeight(origins);
  useFreshTokens(origins, meta.key_id, (next) => {
    forgetReads();
    setBearer(next);
    setRefusal(null);
    setGeneration((g) => g + 1);
  });

  const token = bearer?.kind === 'embed' ? bearer.token : null;
  const exp = bearer?.kind === 'embed' ? bearer.claims.exp : null;
  // The token's own expiry, told before any read is refused (the server refuses it from then on anyway).
  useEffect(() => {
    if (exp === null) return;
    const expire = () => setRefusal({ expired: true, message: 'The embed token has expired.' });
    const ms = exp * 1000 - Date.now();
    if (ms <= 0) return expire();
    const timer = setTimeout(expire, Math.min(ms, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [token, exp]);
  useEffect(() => {
    if (refusal?.expired) postToHost(origins, { type: EXPIRED_MESSAGE });
  }, [refusal, origins]);
  const reader = useMemo(
    () => (token ? bearerReader(token, (message) => setRefusal((r) => r ?? { expired: /expired/i.test(message), message })) : null),
    [token],
  );

  if (!bearer)
    return (
      <Page title="This embed has no token">
        Open it with an embed token in the address's fragment: <code>/embed?key=…#token=…</code>.
      </Page>
    );
  if (bearer.kind === 'api-token')
    return (
      <Page title="An API token cannot be used here">
        An API token must never be put in a page, where anyone can read it. Mint an embed token on your server with an embed key (
        <code>footfall embed-key create</code>) and put that in the address instead.
      </Page>
    );
  if (bearer.kind === 'malformed')
    return (
      <Page title="This is not an embed token">
        The token in the address's fragment is not a JWT. Mint an embed token with your embed key.
      </Page>
    );
  if (meta.key === 'missing')
    return (
      <Page title="This embed names no embed key">
        Add the id of the embed key that signed the token to the address: <code>/embed?key=&lt;key_id&gt;#token=…</code>.
      </Page>
    );
  if (meta.key === 'unknown')
    return (
      <Page title="This embed key is unknown or revoked">
        The embed key named in the address does not exist or was revoked. Create another one and sign new tokens with it.
      </Page>
    );
  if (bearer.claims.kid !== meta.key_id)
    return (
      <Page title="The token and the address name different keys">
        The token is signed with embed key {bearer.claims.kid ?? '(none)'}, but the address names {meta.key_id}.
      </Page>
    );
  if (!bearer.claims.siteId || !reader) return <Page title="The token names no site">Give the embed token a site_id claim.</Page>;
  if (refusal?.expired)
    return (
      <Page title="This view has expired">
        Its embed token has expired. The page that shows it can hand it a fresh one: mint another token and post{' '}
        <code>{`{ type: '${TOKEN_MESSAGE}', token }`}</code> to this frame.
      </Page>
    );
  if (refusal) return <Page title="This embed's token was refused">{refusal.message}</Page>;
  return (
    <main class="embed-main">
      <h1 class="sr-only">Analytics</h1>
      <Dashboard
        key={generation}
        reader={reader}
        siteId={bearer.claims.siteId}
        workspaceReads={false}
        sealedTenantId={bearer.claims.tenantId}
      />
    </main>
  );
}

function Page({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main class="embed-main">
      <Notice title={title}>
        <p>{children}</p>
      </Notice>
    </main>
  );
}
