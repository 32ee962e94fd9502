// A command loads what it uses and nothing else: `footfall --help` no store and no server, a catalog
// command the SQLite control plane and not the events stores, the HTTP server, PostgreSQL or Redis.
// Checked on the compiled command line a user runs, with a module hook recording every ES module it
// loads (each package is entered through one). Its speed is a bench figure (`npm run bench -- cli`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { CLI_ENV } from './fixtures/cli-run.js';

let dir: string;
let register: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-modules-'));
  const hooks = path.join(dir, 'hooks.mjs');
  fs.writeFileSync(
    hooks,
    `import fs from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) fs.appendFileSync(process.env.MODULE_LOG, url + '\\n');
  return next(url, context);
}\n`,
  );
  register = path.join(dir, 'register.mjs');
  fs.writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The packages a command loaded (by name, from node_modules or dist/vendor), after checking it succeeded. */
function packagesLoaded(args: string[]): Promise<Set<string>> {
  const log = path.join(dir, `modules-${args[0]}.log`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', register, FOOTFALL_BIN, ...args],
      { env: { ...CLI_ENV, MODULE_LOG: log } },
      (err, _stdout, stderr) => {
        if (err) return reject(new Error(`${args.join(' ')} failed: ${stderr}`));
        const names = fs
          .readFileSync(log, 'utf8')
          .split('\n')
          // a package build:server bundles into dist/vendor/<name>.js counts as that package
          .map(
            (url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? /\/dist\/vendor\/((?:@[^/]+\/)?[^/]+)\.js$/.exec(url)?.[1],
          )
          .filter((n): n is string => n !== undefined);
        resolve(new Set(names));
      },
    );
  });
}

const SERVER = ['fastify', 'pino', '@fastify/swagger', '@sinclair/typebox', 'prom-client', '@node-rs/argon2'];
const EVENTS = ['@duckdb/node-api', '@clickhouse/client', 'mmdb-lib', 'isbot'];
const SHARED_STORES = ['pg', 'redis'];

test('footfall --help loads commander and no store, server or parser', async () => {
  const loaded = await packagesLoaded(['--help']);
  assert.ok(loaded.has('commander'), 'the recorder sees packages');
  for (const heavy of [...SERVER, ...EVENTS, ...SHARED_STORES, 'kysely', 'better-sqlite3'])
    assert.ok(!loaded.has(heavy), `footfall --help loaded ${heavy}`);
});

test('a catalog command on SQLite loads the control plane only', async () => {
  const loaded = await packagesLoaded(['workspace', 'list', '--data-dir', path.join(dir, 'data')]);
  assert.ok(loaded.has('kysely') && loaded.has('better-sqlite3'), [...loaded].join(', '));
  for (const heavy of [...SERVER, ...EVENTS, ...SHARED_STORES]) assert.ok(!loaded.has(heavy), `workspace list loaded ${heavy}`);
});
