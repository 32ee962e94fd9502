// `npm run build:server` (prepare, pretest, prestart): dist/ is rewritten only when a source is newer
// than its output, and then each file is replaced whole, so an `npm start` never changes modules under
// a footfall that is running from dist/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildServer, outputsOf, serverSources, staleOutputs, useVendored, VENDORED, vendorSources } from '../../scripts/build-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp'));
}

test('build:server writes nothing while dist/ is as new as src/, and rebuilds a stale output whole', async () => {
  await buildServer();
  assert.deepEqual(staleOutputs(), []);
  const again = await buildServer();
  assert.equal(again.skipped, true, 'nothing to do');

  const { source, output } = serverSources().find((s) => s.source.endsWith(path.join('cli', 'main.ts')))!;
  const past = new Date(fs.statSync(source).mtimeMs - 60_000);
  fs.utimesSync(output, past, past);
  const stale = staleOutputs();
  assert.equal(stale.length, 1);
  assert.ok(source.endsWith(stale[0]), `${stale[0]} is the source whose output is older`);
  const rebuilt = await buildServer();
  assert.equal(rebuilt.skipped, false);
  assert.ok(fs.statSync(output).mtimeMs >= fs.statSync(source).mtimeMs, 'the output is new again');
  assert.deepEqual(staleOutputs(), []);
  assert.deepEqual(leftovers(path.dirname(path.dirname(output))), [], 'no temporary file is left in dist/');
});

test('dist/ imports each vendored package through its bundle, which exports what the package does', async () => {
  await buildServer();
  const outputs = serverSources()
    .filter((s) => s.source.endsWith('.ts'))
    .map((s) => s.output);
  for (const name of VENDORED) {
    const bare = new RegExp(`(?:from|import)\\s*\\(?\\s*["']${name}["']`);
    const importing = outputs.filter((o) => fs.readFileSync(o, 'utf8').includes(`/vendor/${name}.js"`));
    assert.ok(importing.length > 0, `some module of dist/ imports ${name}`);
    assert.deepEqual(
      outputs.filter((o) => bare.test(fs.readFileSync(o, 'utf8'))),
      [],
      `no module of dist/ imports ${name} itself`,
    );
    const bundle = vendorSources().find((v) => v.output.endsWith(`${name}.js`))!.output;
    const [own, vendored] = [await import(name), await import(pathToFileURL(bundle).href)];
    assert.deepEqual(Object.keys(vendored).sort(), Object.keys(own).sort());
  }
});

test('useVendored rewrites static, re-exporting and dynamic imports to a path relative to the module', () => {
  const dist = path.dirname(path.dirname(vendorSources()[0].output));
  const code = 'import { sql } from "kysely";\nexport { Kysely } from "kysely";\nconst m = await import("kysely");\nconst s = "kysely";\n';
  assert.equal(
    useVendored(path.join(dist, 'control', 'sqlite', 'open.js'), code),
    'import { sql } from "../../vendor/kysely.js";\nexport { Kysely } from "../../vendor/kysely.js";\nconst m = await import("../../vendor/kysely.js");\nconst s = "kysely";\n',
  );
  assert.match(useVendored(path.join(dist, 'main.js'), code), /from "\.\/vendor\/kysely\.js"/);
});

test('two files of src/ that would become one file of dist/ (x.ts and a plain x.js) stop the build, naming both', () => {
  const src = path.join(ROOT, 'src', 'http', 'collect');
  assert.throws(
    () => outputsOf([path.join(src, 'tracker-script.ts'), path.join(src, 'tracker-script.js')]),
    /tracker-script\.ts and .*tracker-script\.js would both become dist\/http\/collect\/tracker-script\.js/,
  );
  assert.equal(outputsOf([path.join(src, 'tracker-script.ts'), path.join(src, 'browser-tracker.js')]).length, 2);
  // and the tree as it is has no such pair
  assert.ok(serverSources().length > 300);
});
