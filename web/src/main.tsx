// The browser half's one entry: every page path the server answers with the shell (src/http/pages/app-pages.ts)
// is drawn here, by its path. Moving between pages loads the next page; within the dashboard the state
// changes in place, through the URL.
import { render, type ComponentChildren } from 'preact';
import './styles/app.css';
import { AccountPage } from './pages/account-page.js';
import { EmbedPage } from './pages/embed-page.js';
import { takeEmbedBearer } from './pages/embed-token.js';
import { HomePage } from './pages/home-page.js';
import { InvitePage, ResetPage, SignInLinkPage } from './pages/link-pages.js';
import { SettingsPage } from './pages/settings-page.js';
import { SharePage } from './pages/share-page.js';
import { SitePage } from './pages/site-page.js';
import { Notice } from './ui/page-shell.js';
import { applyTheme } from './ui/theme.js';

const seg = '([^/]+)';
const PAGES: readonly [RegExp, (m: string[]) => ComponentChildren][] = [
  [/^\/app\/?$/, () => <HomePage />],
  [new RegExp(`^/app/sites/${seg}/?$`), (m) => <SitePage siteId={m[1]} />],
  [new RegExp(`^/app/invite/${seg}$`), (m) => <InvitePage secret={m[1]} />],
  [new RegExp(`^/app/reset/${seg}$`), (m) => <ResetPage secret={m[1]} />],
  [new RegExp(`^/app/sign-in/${seg}$`), (m) => <SignInLinkPage secret={m[1]} />],
  [new RegExp(`^/app/settings/${seg}(?:/${seg})?/?$`), (m) => <SettingsPage workspaceId={m[1]} section={m[2] ?? 'sites'} />],
  [/^\/app\/account\/?$/, () => <AccountPage />],
  [/^\/embed\/?$/, () => <EmbedPage />],
  [new RegExp(`^/share/${seg}$`), (m) => <SharePage slug={m[1]} />],
];

function decodeSegment(s: string): string {
  try {
    return s === undefined ? s : decodeURIComponent(s);
  } catch {
    return s;
  }
}

function page(path: string): ComponentChildren {
  for (const [re, draw] of PAGES) {
    const m = re.exec(path);
    if (m) return draw(m.map(decodeSegment));
  }
  return (
    <main class="app-main">
      <Notice title="No such page">
        <p>
          <a href="/app">Go to your sites</a>
        </p>
      </Notice>
    </main>
  );
}

applyTheme(location.search);
// Before anything else reads the address: the embed's token leaves it at once.
if (location.pathname.startsWith('/embed')) takeEmbedBearer();
render(page(location.pathname), document.getElementById('app')!);
