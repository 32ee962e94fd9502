// Upgrades on real old data dirs (docs/decisions/upgrades.md): each fixture under test/fixtures/upgrades/
// is a data dir an earlier commit made with its own command line and server
// (scripts/make-upgrade-fixture.ts), with the answers that commit's server gave to a fixed list of /v1,
// share, embed and management requests. A copy of it is opened by the current code (`footfall serve`,
// Date frozen at the instant the fixture was made, so "today" is the same) and the same requests must get
// the same answers: exactly, but for an error's request id, and for what DOCUMENTED_CHANGES lists (each
// a CHANGELOG.md entry). A fixture made before a migration (f64e0792e73b: before 005, 006 and 007) is
// upgraded at that open; after it, its stores must have the layout of stores this code makes anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { CLI_ENV } from '../cli/fixtures/cli-run.js';
import { answerAll, FROZEN_CLOCK, type FixtureFacts, type RecordedAnswer, serveFixture, withoutVolatile } from './fixture-plan.js';

const FIXTURES = new URL('../fixtures/upgrades/', import.meta.url);

/**
 * Answers that changed on purpose since a fixture was made, each with the CHANGELOG.md entry that says
 * so: `fixtures` names the fixtures it applies to, `requests` picks the requests, and `check` decides
 * whether the current answer is the one the change leads to from the old one (it gets every current
 * answer of the run, by name, for facts it needs from the others). Every other answer must be the same.
 */
const DOCUMENTED_CHANGES: Array<{
  changelog: string;
  fixtures: readonly string[];
  requests: (name: string, old: RecordedAnswer) => boolean;
  check: (old: RecordedAnswer, now: RecordedAnswer, all: ReadonlyMap<string, RecordedAnswer>) => void;
}> = [
  {
    changelog: "0.1.0: `006_workspace_plan_history`, usage history from the workspace's creation on",
    fixtures: ['f64e0792e73b'],
    requests: (name) => name === 'usage history',
    check: (old, now) => {
      // the old answer listed every month of the retention window; now those before the workspace was made go
      const items = (old.body as { items: Array<{ period: string }> }).items;
      assert.deepEqual(now.body, { items: items.filter((i) => i.period >= '2026-11') });
    },
  },
  {
    changelog: "0.1.0: `007_data_lifecycle`, events used against the plan's allowance in the workspace's usage",
    fixtures: ['f64e0792e73b'],
    requests: (name) => name === 'management: workspace usage',
    check: (old, now, all) => {
      // the event counts this code builds from the old store at its first open: every event of the month
      const events = ['shop', 'blog'].reduce(
        (n, s) => n + (all.get(`events this month: ${s}`)!.body as { current: { total: number } }).current.total,
        0,
      );
      assert.ok(events > 0);
      assert.deepEqual(now.body, { ...(old.body as object), events_used: events, events_included: 1_000_000, events_overage: 0 });
    },
  },
  {
    changelog: 'Unreleased: `008_site_timezones`, every site has a time zone, UTC for those made before it',
    fixtures: ['0.1.0', '0.2.0', 'f64e0792e73b'],
    requests: (name, old) =>
      old.status === 200 && (name === 'management: sites (management)' || name === 'management: site dashboard facts'),
    check: (old, now) => {
      const zoned = (site: object) => ({ ...site, timezone: 'UTC' });
      const body = old.body as { sites?: object[]; site?: object };
      if (body.sites) assert.deepEqual(now.body, { ...body, sites: body.sites.map(zoned) });
      else assert.deepEqual(now.body, { ...body, site: zoned(body.site!) });
    },
  },
  {
    changelog: 'Unreleased: `011_token_names`, a token may have a name; those made before it have none (null)',
    fixtures: ['0.1.0', '0.2.0', 'f64e0792e73b'],
    requests: (name, old) => old.status === 200 && name === 'management: tokens (management)',
    check: (old, now) => {
      const body = old.body as { tokens: object[] };
      assert.deepEqual(now.body, { ...body, tokens: body.tokens.map((t) => ({ ...t, name: null })) });
    },
  },
  {
    changelog: '0.1.0: management routes added (a workspace, the site dashboard facts, embed keys, share links, the dashboard reads)',
    fixtures: ['f64e0792e73b'],
    requests: (name, old) =>
      name.startsWith('management: ') &&
      (old.status === 404 || old.status === 405) &&
      /NOT_FOUND|INVALID_METHOD/.test(JSON.stringify(old.body)),
    check: (_old, now) => assert.equal(now.status, 200, JSON.stringify(now.body)),
  },
];

/** Tables, columns and indexes of a control.sqlite. */
function controlLayout(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    const objects = db.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by name").all();
    return objects;
  } finally {
    db.close();
  }
}

/** Tables and columns of an events.duckdb, and the versions footfall_meta records. */
async function eventsLayout(file: string): Promise<unknown> {
  const raw = await DuckDBInstance.create(file);
  const c = await raw.connect();
  try {
    const columns = (
      await c.runAndReadAll(
        'SELECT table_name, column_name, data_type, column_index FROM duckdb_columns() WHERE NOT internal AND database_name = current_database() ORDER BY 1, 4',
      )
    ).getRowsJS();
    const versions = (await c.runAndReadAll("SELECT key, value FROM footfall_meta WHERE key LIKE '%version' ORDER BY key")).getRowsJS();
    return { columns, versions };
  } finally {
    c.closeSync();
    raw.closeSync();
  }
}

/** The layouts of a data dir this code makes anew. */
async function freshLayouts(): Promise<{ control: unknown; events: unknown }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-fresh-'));
  try {
    await (await openSqliteControlPlane(path.join(dir, 'control.sqlite'))).close();
    await (await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb') })).close();
    return { control: controlLayout(path.join(dir, 'control.sqlite')), events: await eventsLayout(path.join(dir, 'events.duckdb')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fixtures = fs
  .readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

test('there is a fixture of every release CHANGELOG.md names', () => {
  const releases = [...fs.readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8').matchAll(/^## (\d+\.\d+\.\d+)$/gm)].map(
    (m) => m[1],
  );
  assert.ok(releases.includes('0.1.0'), `releases: ${releases.join(', ')}`);
  assert.deepEqual(
    releases.filter((r) => !fixtures.includes(r)),
    [],
    'make one with: npx tsx scripts/make-upgrade-fixture.ts <the release commit> --name <version>',
  );
});

for (const name of fixtures) {
  test(`fixture ${name}: its data dir opens under this code and answers as it did`, { timeout: 120_000 }, async (t) => {
    const dir = new URL(`${name}/`, FIXTURES);
    const facts = JSON.parse(fs.readFileSync(new URL('fixture.json', dir), 'utf8')) as FixtureFacts;
    const recorded = JSON.parse(fs.readFileSync(new URL('answers.json', dir), 'utf8')) as RecordedAnswer[];
    const data = fs.mkdtempSync(path.join(os.tmpdir(), `footfall-upgrade-${name}-`));
    t.after(() => fs.rmSync(data, { recursive: true, force: true }));
    execFileSync('tar', ['-xzf', path.join(dir.pathname, 'data.tar.gz'), '-C', data]);

    const server = await serveFixture(['--import', FROZEN_CLOCK, FOOTFALL_BIN], data, { ...CLI_ENV, FOOTFALL_FROZEN_NOW: facts.now });
    let answers: RecordedAnswer[];
    try {
      answers = await answerAll(server.base, facts);
    } finally {
      await server.stop();
    }
    // requests added to the plan after the fixture was made come after those it recorded
    assert.deepEqual(
      answers.slice(0, recorded.length).map((a) => a.name),
      recorded.map((a) => a.name),
      'the same requests (fixture-plan.ts plans them from fixture.json)',
    );
    const all = new Map(answers.map((a) => [a.name, a]));
    const differ: string[] = [];
    for (const [i, old] of recorded.entries()) {
      const now = answers[i];
      const changes = DOCUMENTED_CHANGES.filter((c) => c.fixtures.includes(name) && c.requests(old.name, old));
      try {
        if (changes.length === 0) assert.deepEqual(withoutVolatile(now), withoutVolatile(old));
        for (const c of changes)
          try {
            c.check(withoutVolatile(old), withoutVolatile(now), all);
          } catch (err) {
            throw new Error(`not as the documented change says (${c.changelog}): ${(err as Error).message}`);
          }
      } catch (err) {
        differ.push(`"${old.name}" (${old.path}): ${(err as Error).message}`);
      }
    }
    assert.equal(differ.length, 0, `answers unlike those of ${name} (made by ${facts.commit}):\n${differ.join('\n\n')}`);
    // upgraded whole: the layout of a data dir made by this code
    const fresh = await freshLayouts();
    assert.deepEqual(controlLayout(path.join(data, 'control.sqlite')), fresh.control, 'control.sqlite has the layout of a new one');
    assert.deepEqual(await eventsLayout(path.join(data, 'events.duckdb')), fresh.events, 'events.duckdb has the layout of a new one');
    // and the rows a migration backfills: every workspace's plan history starts at its creation (006)
    const cp = await openSqliteControlPlane(path.join(data, 'control.sqlite'));
    try {
      for (const ws of await cp.catalog.listWorkspaces()) {
        const history = await cp.catalog.planHistory(ws.id);
        assert.equal(history[0]?.effectiveAt, ws.createdAt, `${ws.id}'s plan history starts at its creation`);
        assert.equal(history[history.length - 1].plan, ws.plan, `and ends with its plan`);
      }
    } finally {
      await cp.close();
    }
  });
}
