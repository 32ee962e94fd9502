// The browser half's weight and the build's promises, read from dist/web/manifest.json (npm run
// build:web): scripts and styles at most 100 KB compressed, every file content-hashed, with a .br and
// a .gz beside it whose sizes the manifest states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_WEB_DIR } from '../../src/http/pages/web-assets.js';

const BUDGET_BYTES = 100 * 1024;
const manifest = JSON.parse(fs.readFileSync(path.join(DEFAULT_WEB_DIR, 'manifest.json'), 'utf8')) as {
  entries: Record<string, string>;
  files: Record<string, { bytes: number; br: number; gzip: number }>;
};

test('scripts and styles weigh at most 100 KB compressed (gzip, the larger of the two encodings)', () => {
  const code = Object.entries(manifest.files).filter(([name]) => /\.(js|css)$/.test(name));
  assert.ok(code.some(([n]) => n.endsWith('.js')) && code.some(([n]) => n.endsWith('.css')), 'a script and a style sheet');
  const gzip = code.reduce((sum, [, s]) => sum + s.gzip, 0);
  const br = code.reduce((sum, [, s]) => sum + s.br, 0);
  assert.ok(gzip <= BUDGET_BYTES, `${gzip} bytes gzip`);
  assert.ok(br <= gzip, `br ${br} <= gzip ${gzip}`);
});

test('each file is named by its content, and its .br and .gz are there with the sizes the manifest states', () => {
  for (const [logical, file] of Object.entries(manifest.entries)) {
    const [stem, ext] = logical.split('.');
    assert.match(file, new RegExp(`^${stem}-[A-Za-z0-9]{8,}\\.${ext}$`), logical);
    const sizes = manifest.files[file];
    assert.ok(sizes, `${file} in files`);
    assert.equal(fs.statSync(path.join(DEFAULT_WEB_DIR, file)).size, sizes.bytes);
    assert.equal(fs.statSync(path.join(DEFAULT_WEB_DIR, `${file}.br`)).size, sizes.br);
    assert.equal(fs.statSync(path.join(DEFAULT_WEB_DIR, `${file}.gz`)).size, sizes.gzip);
  }
});
