// The layer rules of src/ (docs/architecture.md), checked on every import of every file. Tests are
// under no rule: they reach into any layer to build fakes and fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf, layerOf, readImportGraph, violations, type LayerMap, type LayerRule } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Each top-level folder and file of src/ and its layer. A new folder fails the test until it is given one. */
const LAYERS: LayerMap = {
  'main.ts': 'Entry',
  'app.ts': 'Entry',
  'container.ts': 'Entry',
  'container-backup.ts': 'EntryPart',
  'container-mail.ts': 'EntryPart',
  config: 'Config',
  http: 'Http',
  cli: 'Cli',
  services: 'Services',
  ingest: 'Ingest',
  ports: 'Ports',
  engines: 'Engines',
  control: 'Control',
  limits: 'Limits',
  domain: 'Domain',
  cache: 'Cache',
  dns: 'Dns',
  mail: 'Mail',
  client: 'Client',
};

const ALL = [...new Set(Object.values(LAYERS))];
const others = (layer: string) => ALL.filter((l) => l !== layer);
const never = (from: string | readonly string[], to: string | readonly string[], why: string): LayerRule[] =>
  [from].flat().flatMap((f) =>
    [to]
      .flat()
      .filter((t) => t !== f)
      .map((t) => ({ from: f, to: t, why })),
  );

/** The concrete implementations of ports: only the composition root picks them. */
const IMPLEMENTATIONS = ['Engines', 'Control', 'Limits', 'Cache', 'Dns', 'Mail'];

const RULES: LayerRule[] = [
  ...never('Domain', others('Domain'), 'the domain is pure rules: it imports nothing of ours'),
  ...never('Client', others('Client'), 'the client ships to users without the server'),
  ...IMPLEMENTATIONS.flatMap((impl) =>
    never(
      others('Entry').filter((l) => l !== 'EntryPart'),
      impl,
      'only the composition root (src/container.ts) names concrete implementations',
    ),
  ),
  ...never(['Http', 'Services'], ['Engines', 'Control'], 'routes and use-cases reach data through ports'),
  ...never('Ingest', 'Engines', 'ingest writes through the EventStore port'),
  ...never('Ingest', 'Control', 'ingest reads the catalog through its port'),
  ...never('Cli', ['Engines', 'Control'], 'commands get stores from the composition root'),
  ...never(['Engines', 'Control'], 'Http', 'stores and engines know no HTTP'),
  ...never('Engines', 'Services', 'engines implement ports, never reach use-cases'),
  ...never('Mail', ['Http', 'Cli', 'Services', 'Config'], 'the mailer implements its port and is given its settings'),
  ...never(
    others('Entry').filter((l) => l !== 'Cli'),
    'Entry',
    'only the CLI starts the app; everything else is given its dependencies',
  ),
  ...never(others('Entry'), 'EntryPart', "the composition root's parts are reached through src/container.ts, as every store"),
];

test('every file of src/ is in a layer, every relative import resolves, and no import crosses a forbidden edge', () => {
  const graph = readImportGraph(ROOT);
  assert.deepEqual(violations(graph, LAYERS, RULES), []);
  // A reader that found nothing would pass the line above: it must see every layer and their imports.
  assert.deepEqual([...new Set(graph.files.map((f) => layerOf(f, LAYERS)))].sort(), [...ALL].sort());
  assert.ok(graph.edges.length > 300, `only ${graph.edges.length} imports read`);
  const cliStart = graph.edges.find((e) => e.from === 'src/cli/start.ts' && e.to === 'src/main.ts');
  assert.ok(cliStart, 'the dynamic import of src/main.ts by the CLI is read');
});

/**
 * Inside src/http: one folder per way in, standing on the edges and the plumbing they share. Each folder
 * of src/http/ and its part; a new folder fails the test below until it is given one.
 */
const HTTP_PARTS: LayerMap = {
  server: 'Edges',
  schemas: 'Schemas',
  pipeline: 'Pipeline',
  openapi: 'OpenApi',
  v1: 'V1',
  // the read routes at Plausible's paths (/api/v2/query, /api/v2/funnel, /api/v2/funnels): registered with /v1's, one part with them
  v2: 'V1',
  collect: 'Collect',
  embed: 'Embed',
  share: 'Share',
  'app-api': 'AppApi',
  pages: 'Pages',
  prometheus: 'Prometheus',
};
const SHARED = ['Edges', 'Schemas', 'Pipeline', 'OpenApi'];
const WAYS_IN = ['V1', 'Collect', 'Embed', 'Share', 'AppApi', 'Pages', 'Prometheus'];
const HTTP_RULES: LayerRule[] = [
  ...never(SHARED, WAYS_IN, 'the edges and the plumbing serve every way in and know none of them'),
  ...never('Edges', ['Pipeline', 'OpenApi'], 'the edges sit under every route, the pipeline included'),
  ...never('Schemas', ['Edges', 'Pipeline', 'OpenApi'], 'schemas are data: every part reads them'),
  // The read routes (v1/) are served again by the dashboard, embeds and share links, and the page shell
  // (pages/) frames the embed and share pages: those two a way in may name; no other.
  ...never(
    WAYS_IN,
    WAYS_IN.filter((w) => w !== 'V1' && w !== 'Pages'),
    'a way in stands alone: it shares only the read routes and the page shell',
  ),
  ...never(['V1', 'Pages'], WAYS_IN, 'the read routes and the page shell know none of the ways in that reuse them'),
];

test('inside src/http every folder is a part, and no way in imports another but the read routes and the page shell', () => {
  const graph = readImportGraph(ROOT);
  const under = (f: string) => f.startsWith('src/http/');
  const http = { files: graph.files.filter(under), edges: graph.edges.filter((e) => under(e.from) && e.to !== null && under(e.to)) };
  assert.deepEqual(violations(http, HTTP_PARTS, HTTP_RULES, 'src/http'), []);
  assert.deepEqual(
    [...new Set(http.files.map((f) => layerOf(f, HTTP_PARTS, 'src/http')))].sort(),
    [...new Set(Object.values(HTTP_PARTS))].sort(),
    'every part has files',
  );
  assert.ok(http.edges.length > 100, `only ${http.edges.length} imports read inside src/http`);
});

test('imports are read in every form: multi-line, type-only, re-exports, side effects, dynamic, by URL', () => {
  const source = [
    "import fs from 'node:fs';",
    'import {',
    '  a,',
    '  type B,',
    "} from './multi.js';",
    "import type { C } from '../kinds.js';",
    "import D, * as E from './default-and-namespace.js';",
    "export * from './star.js';",
    "export * as ns from './star-as.js';",
    "export type { F } from './type-export.js';",
    "import './side-effect.js'; import x from './second-on-line.js';",
    "const later = await import('./dynamic.js');",
    "const worker = new URL('./worker.js', import.meta.url);",
    "// import old from './commented-out.js';",
    " * import doc from './in-a-doc-comment.js';",
    'export const text = \'import z from "./not-an-import.js"\';',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test, a template literal in it
    'const built = await import(`./${name}.js`);',
  ].join('\n');
  assert.deepEqual(importsOf(source), [
    { specifier: 'node:fs', line: 1 },
    { specifier: './multi.js', line: 5 },
    { specifier: '../kinds.js', line: 6 },
    { specifier: './default-and-namespace.js', line: 7 },
    { specifier: './star.js', line: 8 },
    { specifier: './star-as.js', line: 9 },
    { specifier: './type-export.js', line: 10 },
    { specifier: './side-effect.js', line: 11 },
    { specifier: './second-on-line.js', line: 11 },
    { specifier: './dynamic.js', line: 12 },
    { specifier: './worker.js', line: 13 },
  ]);
});

test('a forbidden import, an unresolved one and a folder without a layer are each reported by file and import', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-layers-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'src/main.ts': '',
    'src/engines/duck.ts': '',
    'src/control/store.ts': '',
    'src/ports/engine.ts': '',
    'src/domain/rule.ts': "import type {\n  Duck,\n} from '../engines/duck.js';\n",
    'src/http/route.ts': "export async function load() {\n  return import('../control/store.js');\n}\n",
    'src/services/use-case.ts': "import { start } from '../main.js';\nimport type { Engine } from '../ports/engine.js';\n",
    'src/cli/start.ts': "const { start } = await import('../main.js');\n",
    'src/client/index.ts': "export type { Rule } from '../domain/rule.js';\n",
    'src/ingest/load.ts': "import { gone } from './gone.js';\n",
    'src/widgets/panel.ts': '',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  assert.deepEqual(violations(readImportGraph(root), LAYERS, RULES), [
    'src/widgets/panel.ts is in no layer: give its top-level folder (or file) of src/ a layer',
    "src/client/index.ts:1 imports '../domain/rule.js': Client never imports Domain (the client ships to users without the server)",
    "src/domain/rule.ts:3 imports '../engines/duck.js': Domain never imports Engines " +
      '(the domain is pure rules: it imports nothing of ours; only the composition root (src/container.ts) names concrete implementations)',
    "src/http/route.ts:2 imports '../control/store.js': Http never imports Control " +
      '(only the composition root (src/container.ts) names concrete implementations; routes and use-cases reach data through ports)',
    "src/ingest/load.ts:1 imports './gone.js', which resolves to no file",
    "src/services/use-case.ts:1 imports '../main.js': Services never imports Entry " +
      '(only the CLI starts the app; everything else is given its dependencies)',
  ]);
});
