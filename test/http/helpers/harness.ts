// A real app over a fake clock and seeded workspaces, on the stack FOOTFALL_TEST_STACK names (stack.ts):
// by default an in-memory SQLite control plane and DuckDB in a temp data dir.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config/config.js';
import { buildContainer, openLiveCollection, type Container } from '../../../src/container.js';
import type { LiveCollection } from '../../../src/ingest/collect/open-collection.js';
import { FakeClock } from '../../../src/domain/clock.js';
import type { ApiPolicyOverrides, PlanId } from '../../../src/domain/plans.js';
import { generateSecret, hashSecret } from '../../../src/domain/tokens.js';
import type { CatalogStore, Workspace } from '../../../src/ports/catalog-store.js';
import type { TokenScope } from '../../../src/domain/access.js';
import type { RateLimiter } from '../../../src/ports/rate-limiter.js';
import type { PasswordHasher } from '../../../src/ports/password-hasher.js';
import type { PeopleStore } from '../../../src/ports/people-store.js';
import { Argon2PasswordHasher } from '../../../src/control/password-hasher.js';
import { openApiChecker, type OpenApiChecker } from './openapi-check.js';
import { openStack, stackName, type StackName } from './stack.js';

export const NOW = '2025-06-15T12:00:00.000Z';

// Harnesses a failed test left open are closed when the file's tests are done: on the scale stack
// their sockets (PostgreSQL pool, Redis, ClickHouse) would otherwise keep the test process alive.
const open = new Set<{ close(): Promise<void> }>();
after(async () => {
  for (const h of [...open]) await h.close().catch(() => undefined);
});

export interface Harness {
  stack: StackName;
  app: FastifyInstance;
  container: Container;
  clock: FakeClock;
  catalog: CatalogStore;
  people: PeopleStore;
  checker: OpenApiChecker;
  /** live collection (POST /api/event), when asked for with `collect` */
  collection: LiveCollection | null;
  /** inject + validate the response against the OpenAPI document */
  get(
    url: string,
    opts?: { token?: string; headers?: Record<string, string>; method?: InjectOptions['method'] },
  ): Promise<LightMyRequestResponse>;
  /** POST a JSON body (inject + validate the response against the OpenAPI document) */
  post(url: string, body: unknown, opts?: { token?: string; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  workspace(plan: PlanId, apiPolicy?: ApiPolicyOverrides): Promise<Workspace>;
  token(
    workspaceId: string,
    opts?: { scopes?: TokenScope[]; siteIds?: string[] | null; tenantIds?: string[] | null },
  ): Promise<{ id: string; secret: string }>;
  /** pretends the workspace is now on another plan (the store cannot downgrade; tokens survive a downgrade) */
  setPlan(workspaceId: string, plan: PlanId): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  now?: string;
  limiter?: RateLimiter;
  catalog?: (c: CatalogStore) => CatalogStore;
  /** settings as flags of `serve` would give them (camelCase keys of Config) */
  config?: Record<string, string | number>;
  /** open live collection; its loader runs every `intervalMs` (default: only when flushed) */
  collect?: boolean | { intervalMs?: number };
  /** password hashing (default: argon2id at the lowest cost, so suites that sign in stay fast) */
  hasher?: PasswordHasher;
}

/** Real argon2id with the smallest parameters: what the production ones cost is the bench's business. */
export const TEST_HASHER = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new FakeClock(Date.parse(options.now ?? NOW));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-http-'));
  const stores = await openStack(clock);
  const cp = stores.control;
  const planOverride = new Map<string, PlanId>();
  const base = cp.catalog;
  const withPlans: CatalogStore = Object.create(base, {
    getWorkspace: {
      value: async (id: string) => {
        const ws = await base.getWorkspace(id);
        return ws && planOverride.has(id) ? { ...ws, plan: planOverride.get(id)! } : ws;
      },
    },
    // authentication reads the workspace with the token: the same override
    findTokenWithWorkspace: {
      value: async (secretHash: string, siteId?: string) => {
        const found =
          siteId === undefined ? await base.findTokenWithWorkspace(secretHash) : await base.findTokenWithWorkspace(secretHash, siteId);
        const id = found?.workspace.id;
        return found && id && planOverride.has(id) ? { ...found, workspace: { ...found.workspace, plan: planOverride.get(id)! } } : found;
      },
    },
  });
  const catalog = options.catalog ? options.catalog(withPlans) : withPlans;
  const config = loadConfig({ dataDir, logLevel: 'silent', geoipDb: 'off', ...stores.config, ...options.config }, {});
  let container: Container;
  let collection: LiveCollection | null = null;
  try {
    container = await buildContainer(config, {
      clock,
      control: { catalog, ledger: cp.ledger, people: cp.people, embeds: cp.embeds, reports: cp.reports, lifecycle: cp.lifecycle },
      limiter: options.limiter,
      hasher: options.hasher ?? TEST_HASHER,
    });
    if (options.collect) {
      const intervalMs = typeof options.collect === 'object' ? options.collect.intervalMs : undefined;
      collection = await openLiveCollection(config, container, { intervalMs: intervalMs ?? 3_600_000 }).catch(async (err) => {
        await container.close();
        throw err;
      });
    }
  } catch (err) {
    await stores.release();
    throw err;
  }
  const app = await buildApp(collection ? { ...container, collector: collection.collector } : container, { logger: false });
  const checker = await openApiChecker(app);

  let closing: Promise<void> | undefined;
  const h: Harness = {
    stack: stackName(),
    app,
    container,
    clock,
    catalog: base,
    people: cp.people,
    checker,
    collection,
    async get(url, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const res = await app.inject({ method: opts.method ?? 'GET', url, headers });
      checker.check(opts.method ?? 'GET', url, res);
      return res;
    },
    async post(url, body, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const res = await app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
      checker.check('POST', url, res);
      return res;
    },
    workspace: (plan, apiPolicy) => base.createWorkspace({ name: `ws ${plan}`, plan, apiPolicy }),
    async token(workspaceId, opts = {}) {
      const secret = generateSecret(randomBytes);
      const t = await base.createToken({
        workspaceId,
        scopes: opts.scopes ?? ['metrics:read'],
        siteIds: opts.siteIds ?? null,
        tenantIds: opts.tenantIds ?? null,
        secretHash: hashSecret(secret),
      });
      return { id: t.id, secret };
    },
    setPlan: (id, plan) => void planOverride.set(id, plan),
    close: () =>
      (closing ??= (async () => {
        open.delete(h);
        try {
          await app.close();
          await collection?.close();
          await container.close();
        } finally {
          await stores.release();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      })()),
  };
  open.add(h);
  return h;
}
