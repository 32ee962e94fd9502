// Makes an upgrade fixture (docs/decisions/upgrades.md): a small data dir made by an earlier commit's own
// command line and server, and the answers that commit's server gave to a fixed list of requests, stored
// under test/fixtures/upgrades/<name>/ for test/upgrades/fixtures.test.ts to open under the current code.
//
//   npx tsx scripts/make-upgrade-fixture.ts <commit-or-tag> [--name NAME] [--keep]
//
// The commit is checked out into a temporary git worktree (removed afterwards unless --keep) and run from
// its sources through tsx, with the node_modules of this checkout (packages that commit needs and this
// checkout lacks are installed beside them with npm, at the versions its package-lock.json names). Every
// process runs with Date frozen at FIXTURE_NOW (test/upgrades/frozen-clock.mjs). A step the commit cannot
// do (a command it lacks) is skipped and listed in fixture.json's `skipped`; the requests that need it are
// left out. The data dir is snapshotted after the set-up, with the server stopped, and before the
// requests are made, so that the test starts from the same state and its requests charge the same units.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintEmbedToken } from '../src/client/embed-token.js';
import {
  answerAll,
  FIXTURE_NOW,
  FROZEN_CLOCK,
  type FixtureFacts,
  OWNER,
  PUBLIC_URL,
  serveFixture,
  visitLines,
} from '../test/upgrades/fixture-plan.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = path.join(ROOT, 'test/fixtures/upgrades');

function usage(message: string): never {
  process.stderr.write(
    `make-upgrade-fixture: ${message}\nusage: npx tsx scripts/make-upgrade-fixture.ts <commit-or-tag> [--name NAME] [--keep]\n`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const nameAt = args.indexOf('--name');
const name = nameAt >= 0 ? args[nameAt + 1] : undefined;
const rev = args.find((a, i) => !a.startsWith('--') && (nameAt < 0 || i !== nameAt + 1));
if (!rev) usage('name the commit or tag to make the fixture with');
if (nameAt >= 0 && !name) usage('--name needs a value');

const git = (...a: string[]) => execFileSync('git', ['-C', ROOT, ...a], { encoding: 'utf8' }).trim();
let commit: string;
try {
  commit = git('rev-parse', '--verify', `${rev}^{commit}`);
} catch {
  usage(`${rev} is not a commit of this repository`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-fixture-'));
const wt = path.join(tmp, 'code');
const data = path.join(tmp, 'data');
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOOTFALL_'))),
  FOOTFALL_FROZEN_NOW: FIXTURE_NOW,
  FOOTFALL_LOG_LEVEL: 'warn',
};
const log = (s: string) => process.stderr.write(`${s}\n`);

try {
  git('worktree', 'add', '--detach', wt, commit);
  const version = JSON.parse(fs.readFileSync(path.join(wt, 'package.json'), 'utf8')).version as string;
  const fixtureName =
    name ??
    (git('tag', '--points-at', commit)
      .split('\n')
      .find((t) => /^v\d/.test(t)) ||
      commit.slice(0, 12));
  log(`making fixture ${fixtureName} with ${commit} (package.json ${version})`);
  linkModules(wt);
  // the command line of that commit, from its sources, with Date frozen
  const argv = ['--import', 'tsx', '--import', FROZEN_CLOCK, path.join(wt, 'src/cli/main.ts')];
  const help = run(argv, ['--help']).stdout;
  const has = (command: string, sub?: string) =>
    new RegExp(`^\\s+${command}\\b`, 'm').test(help) &&
    (!sub || new RegExp(`^\\s+${sub}\\b`, 'm').test(run(argv, [command, '--help']).stdout));
  const skipped: string[] = [];
  const ok = (...a: string[]) => cliJson(argv, a);

  // ---- the catalog ----
  const pro = ok('workspace', 'create', '--name', 'Fixture Pro', '--plan', 'pro').workspace_id as string;
  const starter = ok('workspace', 'create', '--name', 'Fixture Starter', '--plan', 'starter').workspace_id as string;
  const site = (ws: string, n: string, host: string, profile: string) =>
    ok('site', 'create', '--workspace', ws, '--name', n, '--hostname', host, '--profile', profile).site_id as string;
  const sites = {
    shop: site(pro, 'Shop', 'shop.fixture.test', 'extended'),
    blog: site(pro, 'Blog', 'blog.fixture.test', 'strict'),
    tiny: site(starter, 'Tiny', 'tiny.fixture.test', 'extended'),
  };
  const tenant = (slug: string) =>
    ok('tenant', 'create', '--site', sites.shop, '--slug', slug, '--name', slug.toUpperCase()).tenant_id as string;
  const tenants = { acme: tenant('acme'), globex: tenant('globex') };
  const goals = [
    ok(
      'goal',
      'create',
      '--site',
      sites.shop,
      '--name',
      'Signed up',
      '--type',
      'PAGEVIEW_MATCH',
      '--intent',
      'signup',
      '--pattern',
      '/signup/done',
    ).goal_id as string,
    ok(
      'goal',
      'create',
      '--site',
      sites.shop,
      ...['--name', 'Form sent', '--type', 'EVENT_MATCH', '--intent', 'lead', '--pattern', 'form.submit', '--form-id', 'signup'],
    ).goal_id as string,
  ];
  const token = (ws: string, ...more: string[]) => ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read', ...more);
  const proToken = token(pro);
  const restricted = token(pro, '--sites', sites.shop, '--tenants', tenants.acme);
  const revoked = token(pro);
  ok('token', 'revoke', revoked.token_id);
  const rotated = token(pro);
  const rotatedNew = ok('token', 'rotate', rotated.token_id);
  const starterToken = token(starter);

  // ---- embeds and share links ----
  let embedToken: string | null = null;
  if (has('embed-key')) {
    const key = ok('embed-key', 'create', '--workspace', pro, '--origins', 'https://app.customer.test');
    embedToken = await mintEmbedToken(
      { keyId: key.key_id, secret: key.secret },
      { tokenId: proToken.token_id, siteId: sites.shop, ttlSeconds: 86_400, now: new Date(FIXTURE_NOW) },
    );
  } else skipped.push('embed keys (no embed-key command)');
  let sharePath: string | null = null;
  if (has('share')) sharePath = new URL(ok('share', 'create', '--site', sites.shop, '--public-url', PUBLIC_URL).url).pathname;
  else skipped.push('share links (no share command)');

  // ---- events: two imports (the second undone), old days of the starter site (purged) ----
  const ndjson = (file: string, lines: string[]) => {
    fs.writeFileSync(path.join(tmp, file), `${lines.join('\n')}\n`);
    return path.join(tmp, file);
  };
  const kept = ok(
    'import',
    'events',
    ndjson('kept.ndjson', [
      ...visitLines({
        siteId: sites.shop,
        host: 'shop.fixture.test',
        tenants: [tenants.acme, tenants.globex],
        visits: 70,
        seed: 1,
        daysBack: 6,
      }),
      ...visitLines({ siteId: sites.blog, host: 'blog.fixture.test', visits: 30, seed: 2, daysBack: 6 }),
      ...visitLines({ siteId: sites.tiny, host: 'tiny.fixture.test', visits: 10, seed: 3, daysBack: 3 }),
    ]),
  );
  const imports: FixtureFacts['imports'] = { kept: (kept.import_id as string | undefined) ?? null, undone: null };
  const again = ok(
    'import',
    'events',
    ndjson('undone.ndjson', visitLines({ siteId: sites.shop, host: 'shop.fixture.test', visits: 15, seed: 4, daysBack: 2 })),
  );
  if (has('import', 'undo') && again.import_id) {
    ok('import', 'undo', again.import_id);
    imports.undone = again.import_id;
  } else skipped.push('undo of an import (no import undo command)');
  if (has('purge')) {
    // days of the starter site (14 months kept) from 16 months back: stored, then purged
    const old = visitLines({ siteId: sites.tiny, host: 'tiny.fixture.test', visits: 8, seed: 5, daysBack: 2 }).map((l) => {
      const e = JSON.parse(l);
      e.ts = new Date(Date.parse(e.ts) - 490 * 86_400_000).toISOString();
      return JSON.stringify(e);
    });
    ok('import', 'events', ndjson('old.ndjson', old));
    ok('purge');
  } else skipped.push('purge (no purge command)');

  // ---- people: the owner signs in through the management API; a viewer is invited ----
  const invitation = has('user')
    ? ok('user', 'invite', '--workspace', pro, '--email', OWNER.email, '--role', 'owner', '--public-url', PUBLIC_URL)
    : null;
  if (has('user'))
    ok('user', 'invite', '--workspace', pro, '--email', 'viewer@fixture.test', '--role', 'viewer', '--public-url', PUBLIC_URL);
  else skipped.push('people (no user command)');

  // ---- the server: the invitation accepted (a session), live collection with engagement ----
  let session: FixtureFacts['session'] = null;
  const server = await serveFixture(argv, data, env);
  try {
    if (invitation) {
      const secret = new URL(invitation.invitation_url).pathname.split('/').pop()!;
      const res = await fetch(`${server.base}/app/api/invitations/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: PUBLIC_URL },
        body: JSON.stringify({ invitation: secret, password: OWNER.password, name: OWNER.name }),
      });
      const body = (await res.json()) as { csrf_token?: string };
      const cookie = res.headers.get('set-cookie')?.split(';')[0];
      if (res.status !== 200 || !cookie || !body.csrf_token)
        throw new Error(`accepting the invitation answered ${res.status}: ${JSON.stringify(body)}`);
      session = { cookie, csrf: body.csrf_token };
    }
    const send = async (event: Record<string, unknown>, ua: string, ip: string) => {
      const res = await fetch(`${server.base}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': ua, 'x-forwarded-for': ip },
        body: JSON.stringify(event),
      });
      if (res.status !== 202) throw new Error(`POST /api/event answered ${res.status}: ${await res.text()}`);
    };
    const ua = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
    for (const [i, page] of ['/', '/pricing', '/signup', '/signup/done'].entries()) {
      const u = `https://shop.fixture.test${page}`;
      await send({ n: 'pageview', u, d: 'shop.fixture.test', r: i === 0 ? 'https://www.bing.com/' : null }, ua, '203.0.113.7');
      await send({ n: 'engagement', u, d: 'shop.fixture.test', e: 12_000 + i * 1_000 }, ua, '203.0.113.7');
    }
    await send(
      { n: 'Form: Submission', u: 'https://shop.fixture.test/signup', d: 'shop.fixture.test', p: { form_id: 'signup' } },
      ua,
      '203.0.113.7',
    );
  } finally {
    await server.stop(); // loads what the spool holds, then closes the stores
  }
  if (!fs.existsSync(path.join(data, 'control.sqlite'))) throw new Error(`the server left no control.sqlite in ${data}: ${server.log()}`);

  const facts: FixtureFacts = {
    commit,
    version,
    now: FIXTURE_NOW,
    publicUrl: PUBLIC_URL,
    workspaces: { pro, starter },
    sites,
    tenants,
    goals,
    tokens: {
      pro: proToken.secret,
      proId: proToken.token_id,
      restricted: restricted.secret,
      revoked: revoked.secret,
      rotatedOld: rotated.secret,
      rotatedNew: rotatedNew.secret,
      starter: starterToken.secret,
    },
    session,
    embedToken,
    sharePath,
    imports,
    skipped,
  };

  // ---- the snapshot, then the answers of that commit's server to the requests, on a copy ----
  const out = path.join(FIXTURES, fixtureName);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const f of fs.readdirSync(data))
    if (/\.(wal|sock)$|-wal$|-shm$|^admin/.test(f)) throw new Error(`the data dir still holds ${f}: was the server stopped?`);
  execFileSync('tar', ['-czf', path.join(out, 'data.tar.gz'), '--sort=name', '--owner=0', '--group=0', '--mtime=@0', '-C', data, '.']);
  const copy = path.join(tmp, 'answering');
  fs.mkdirSync(copy, { mode: 0o700 });
  execFileSync('tar', ['-xzf', path.join(out, 'data.tar.gz'), '-C', copy]);
  const answering = await serveFixture(argv, copy, env);
  let answers: Awaited<ReturnType<typeof answerAll>>;
  try {
    answers = await answerAll(answering.base, facts);
  } finally {
    await answering.stop();
  }
  fs.writeFileSync(path.join(out, 'fixture.json'), `${JSON.stringify(facts, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'answers.json'), `${JSON.stringify(answers, null, 2)}\n`);
  const size = fs.statSync(path.join(out, 'data.tar.gz')).size;
  log(
    `wrote ${path.relative(ROOT, out)}: data.tar.gz ${Math.round(size / 1024)} KiB, ${answers.length} answers${skipped.length ? `; skipped: ${skipped.join('; ')}` : ''}`,
  );
} finally {
  if (keep) log(`kept ${tmp}`);
  else {
    try {
      git('worktree', 'remove', '--force', wt);
    } catch {
      // not made
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function run(argv: string[], a: string[], input?: string): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [...argv, ...a], {
      cwd: wt,
      env,
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') };
  }
}

function cliJson(argv: string[], a: string[]): Record<string, string> {
  const r = run(argv, [...a, '--data-dir', data, '--json']);
  if (r.code !== 0) throw new Error(`footfall ${a.join(' ')} exited ${r.code}: ${r.stdout} ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/**
 * node_modules for the worktree: this checkout's packages, linked one by one, plus any package the
 * commit's package.json names that this checkout lacks, installed with npm into a folder of the
 * temporary directory at the version the commit's lock names.
 */
function linkModules(dir: string): void {
  const ours = fs.realpathSync(path.join(ROOT, 'node_modules'));
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const lock = fs.existsSync(path.join(dir, 'package-lock.json'))
    ? JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'))
    : { packages: {} };
  const wanted = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  const missing = wanted.filter((d) => !fs.existsSync(path.join(ours, d)));
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(ours)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      fs.mkdirSync(path.join(modules, entry), { recursive: true });
      for (const sub of fs.readdirSync(path.join(ours, entry))) fs.symlinkSync(path.join(ours, entry, sub), path.join(modules, entry, sub));
    } else fs.symlinkSync(path.join(ours, entry), path.join(modules, entry));
  }
  if (missing.length === 0) return;
  const extra = path.join(tmp, 'extra');
  fs.mkdirSync(extra);
  const specs = missing.map(
    (d) => `${d}@${lock.packages?.[`node_modules/${d}`]?.version ?? pkg.dependencies?.[d] ?? pkg.devDependencies?.[d]}`,
  );
  log(`installing what ${commit.slice(0, 12)} needs and this checkout lacks: ${specs.join(' ')}`);
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', extra, ...specs],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  for (const d of missing) {
    fs.mkdirSync(path.dirname(path.join(modules, d)), { recursive: true });
    fs.symlinkSync(path.join(extra, 'node_modules', d), path.join(modules, d));
  }
}
