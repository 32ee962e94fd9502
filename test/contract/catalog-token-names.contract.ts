// The names of API tokens in the CatalogStore (createToken's name, renameToken): every implementation
// must pass it unchanged (SQLite in catalog-store.test.ts, PostgreSQL in catalog-store.postgres.test.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { skippable } from '../helpers/services.js';
import { catalogTest, isCatalogError, type CatalogFactory } from './catalog-store.contract.js';

export function runCatalogTokenNamesContract(name: string, factory: CatalogFactory, opts: { skip?: string | false } = {}): void {
  const test = skippable(opts.skip);
  const withCatalog = catalogTest(factory);
  const newToken = async (c: CatalogStore, workspaceId: string, tokenName?: string | null) => {
    const secret = generateSecret(randomBytes);
    const token = await c.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret), name: tokenName });
    return { token, hash: hashSecret(secret) };
  };

  test(
    `${name}: a token's name round-trips trimmed; without one it is null`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const named = await newToken(c, ws.id, '  Data warehouse sync  ');
      clock.advance(1);
      const unnamed = await newToken(c, ws.id);
      clock.advance(1);
      const explicitNull = await newToken(c, ws.id, null);
      assert.equal(named.token.name, 'Data warehouse sync');
      assert.equal(unnamed.token.name, null);
      assert.equal(explicitNull.token.name, null);
      assert.equal((await c.getToken(named.token.id))?.name, 'Data warehouse sync');
      assert.equal((await c.findTokenByHash(named.hash))?.name, 'Data warehouse sync');
      assert.deepEqual(await c.getToken(named.token.id), named.token, 'the stored record is the one createToken answered');
      assert.deepEqual(
        (await c.listTokens(ws.id)).map((t) => [t.id, t.name]),
        [
          [named.token.id, 'Data warehouse sync'],
          [unnamed.token.id, null],
          [explicitNull.token.id, null],
        ],
      );
    }),
  );

  test(
    `${name}: renameToken names, renames and clears, and changes nothing else`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const { token, hash } = await newToken(c, ws.id);
      const other = await newToken(c, ws.id, 'Other');
      clock.advance(60_000);
      const renamed = await c.renameToken(token.id, ' Nightly export ');
      assert.deepEqual(renamed, { ...token, name: 'Nightly export' });
      assert.deepEqual(await c.getToken(token.id), renamed);
      assert.equal((await c.findTokenByHash(hash))?.name, 'Nightly export');
      assert.equal((await c.renameToken(token.id, 'Warehouse')).name, 'Warehouse');
      const cleared = await c.renameToken(token.id, null);
      assert.deepEqual(cleared, { ...token, name: null });
      assert.equal((await c.getToken(token.id))?.name, null);
      assert.equal((await c.getToken(other.token.id))?.name, 'Other', 'the other token keeps its name');
      // a revoked token keeps its record, and may still be renamed
      await c.revokeToken(token.id, '2025-03-01T10:05:00.000Z');
      assert.equal((await c.renameToken(token.id, 'Retired')).name, 'Retired');
      assert.equal((await c.getToken(token.id))?.revokedAt, '2025-03-01T10:05:00.000Z');
    }),
  );

  test(
    `${name}: an unknown token is NOT_FOUND; a blank, too long or control-character name is refused`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const { token } = await newToken(c, ws.id, 'Kept');
      await assert.rejects(c.renameToken('tok_missing', 'X'), isCatalogError('NOT_FOUND', /unknown token "tok_missing"/));
      await assert.rejects(c.renameToken('tok_missing', null), isCatalogError('NOT_FOUND'));
      for (const bad of ['', '   ', 'x'.repeat(201), 'tab\there'])
        await assert.rejects(c.renameToken(token.id, bad), isCatalogError('INVALID', /token name/));
      assert.equal((await c.getToken(token.id))?.name, 'Kept', 'a refused rename changes nothing');
      assert.equal((await c.renameToken(token.id, 'x'.repeat(200))).name, 'x'.repeat(200), '200 characters is the limit');
      const before = (await c.listTokens(ws.id)).length;
      for (const bad of ['', '   ', 'x'.repeat(201)])
        await assert.rejects(
          c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(generateSecret(randomBytes)), name: bad }),
          isCatalogError('INVALID', /token name/),
        );
      assert.equal((await c.listTokens(ws.id)).length, before, 'a refused token is not stored');
    }),
  );
}
