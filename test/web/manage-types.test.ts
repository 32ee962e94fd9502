// The dashboard's types of the management API (web/src/api/manage-types.ts) are generated from the
// document the server serves at /app/api/openapi.json: a route schema changed without regenerating
// them fails here, as the typed client's do in test/http/client.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { MANAGE_TYPES_FILE, manageTypes } from '../../scripts/gen-manage-types.js';

test("the dashboard's management types are generated from the served document (npm run gen:manage-types)", async () => {
  const committed = fs.readFileSync(MANAGE_TYPES_FILE, 'utf8');
  assert.ok(committed === (await manageTypes()), 'web/src/api/manage-types.ts is stale: run npm run gen:manage-types');
});
