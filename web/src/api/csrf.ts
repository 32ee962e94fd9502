// The signed-in session's CSRF token, which every POST under /app/api carries (X-CSRF-Token): kept from
// the last answer that gave one (GET /app/api/session, a sign-in), or read from the session when a POST
// leaves before any did (the dashboard's query reads start in the same pass as the page's session read).
let known: string | null = null;
let reading: Promise<string | null> | null = null;

export function rememberCsrf(token: string): void {
  known = token;
}

export function knownCsrf(): string | null {
  return known;
}

/** The token, read from GET /app/api/session when none is known yet (null: no session). */
export function csrfToken(): Promise<string | null> {
  if (known) return Promise.resolve(known);
  reading ??= fetch('/app/api/session', { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
    .then((res) => (res.ok ? res.json() : null))
    .then((data: { csrf_token?: unknown } | null) => {
      if (typeof data?.csrf_token === 'string') known = data.csrf_token;
      return known;
    })
    .catch(() => null)
    .finally(() => {
      reading = null;
    });
  return reading;
}
