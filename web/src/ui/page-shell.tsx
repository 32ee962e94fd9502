// The dashboard's frame: the product's name (home), what page this is, and the signed-in person with
// a way out. Embeds and share pages have none of it.
import type { ComponentChildren } from 'preact';
import { signOut } from '../api/manage.js';
import type { SessionState } from '../api/manage-types.js';

export function AppFrame({
  session,
  title,
  headerExtra,
  children,
}: {
  session: SessionState | null;
  title: string;
  /** a control drawn in the title's place (the site page's site switcher, which names the site) */
  headerExtra?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to the content
      </a>
      <header class="app-header">
        <a class="brand" href="/app">
          footfall
        </a>
        {headerExtra ? <div class="app-header-extra">{headerExtra}</div> : <span class="app-title">{title}</span>}
        {session ? (
          <span class="who">
            <a class="who-account" href="/app/account" title="Your account: name, password, sessions">
              {/* a phone's header has no room for the address: the link says Account there */}
              <span class="muted">{session.user.email}</span>
              <span class="who-short">Account</span>
            </a>
            <button type="button" class="quiet-button" onClick={() => void signOut()}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <main id="main" class="app-main">
        {children}
      </main>
    </>
  );
}

/** A page-wide message: no token, a link that expired, a page that does not exist. */
export function Notice({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="notice">
      <h1>{title}</h1>
      {children}
    </div>
  );
}
