// The API references in docs/ are generated from the route schemas (`npm run docs`): a schema changed
// without running it fails here, naming the file to regenerate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { references } from '../../scripts/gen-docs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('docs/api.md and docs/app-api.md are what `npm run docs` writes from the OpenAPI documents', async () => {
  const refs = await references();
  assert.deepEqual(
    refs.map((r) => r.file),
    ['docs/api.md', 'docs/app-api.md'],
  );
  for (const { file, md } of refs) {
    const onDisk = fs.readFileSync(path.join(root, file), 'utf8');
    assert.ok(onDisk === md, `${file} is out of date with the route schemas: run npm run docs`);
  }
  const mgmt = refs[1].md;
  // every management operation is in it, with how a caller signs
  for (const op of ['signIn', 'deleteSite', 'createEmbedKey', 'changeMemberRole']) assert.match(mgmt, new RegExp(`\\(\`${op}\`\\)`), op);
  assert.match(mgmt, /Auth: the session cookie and `X-CSRF-Token`/);
});
