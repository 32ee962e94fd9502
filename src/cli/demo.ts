// `footfall demo [--seed N] [--days N]`: loads the demo workspaces, sites, goals, tokens and
// traffic (docs/product.md §2), then prints the tokens (their secrets are shown only now).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import type { DemoOwner, DemoResult } from '../ingest/demo/seed-demo.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { PeopleStore } from '../ports/people-store.js';
import { issueLink } from '../services/people/links.js';
import { openImportStores } from '../container.js';
import { createProgressBar, noProgress } from '../ingest/pipeline/progress-bar.js';
import { commandConfig, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';

/** Written once the demo is loaded, so a second run cannot load it twice. */
export const DEMO_MARKER_FILE = 'demo-loaded.json';
/** Present while `npm start` has not loaded all the demo traffic: what the load needs to run (again). */
export const DEMO_LOADING_FILE = 'demo-loading.json';

export function registerDemo(program: Command): void {
  withStoreOptions(
    program
      .command('demo')
      .description('load demo workspaces, sites, tenants, goals, tokens and traffic')
      .option('--seed <n>', 'seed of the generated traffic (same seed, same data)', '1')
      .option('--days <n>', 'days of traffic ending today', '90'),
  ).action(async (opts: StoreOptions & { seed: string; days: string }) => {
    const json = !!opts.json;
    try {
      const config = commandConfig(opts);
      const seed = intOption('--seed', opts.seed, 0, 2 ** 31 - 1);
      const days = intOption('--days', opts.days, 1, 3650);
      const result = await runDemo(config, { seed, days, progress: !json && process.stderr.isTTY ? process.stderr : null });
      emit(json, demoJson(result), demoText(result));
    } catch (err) {
      fail(json, err);
    }
  });
}

export async function runDemo(
  config: Readonly<Config>,
  // clock: when the control plane records the demo's workspaces, tokens and plans as made (now by default)
  opts: { seed: number; days: number; progress?: NodeJS.WriteStream | null; nowMs?: number; clock?: Clock },
): Promise<DemoResult> {
  const marker = path.join(config.dataDir, DEMO_MARKER_FILE);
  if (fs.existsSync(marker)) throw new CliError(`the demo is already loaded in ${config.dataDir}`, 'CONFLICT', 1);
  // The demo's generator and the import pipeline load only when the demo is made.
  const { seedDemo } = await import('../ingest/demo/seed-demo.js');
  const stores = await openImportStores(config, { clock: opts.clock });
  try {
    const bar = opts.progress ? createProgressBar(opts.progress, null, 'demo traffic') : noProgress;
    const result = await seedDemo({
      catalog: stores.catalog,
      people: stores.people,
      sink: await stores.target.begin(),
      seed: opts.seed,
      days: opts.days,
      nowMs: opts.nowMs ?? Date.now(),
      onProgress: (p) => bar.update(p),
    });
    bar.done();
    if (result.owner && stores.people) result.owner = await withSignInLink(stores.people, config, result.owner);
    fs.writeFileSync(marker, JSON.stringify({ seed: opts.seed, days: opts.days, loaded_at: new Date().toISOString() }) + '\n');
    return result;
  } finally {
    await stores.close();
  }
}

/** The demo owner with a one-time sign-in link (valid an hour; `footfall user reset-password` gives another way in). */
export async function withSignInLink(people: PeopleStore, config: Pick<Config, 'publicUrl'>, owner: DemoOwner): Promise<DemoOwner> {
  const user = await people.getUser(owner.user_id);
  if (!user) return owner;
  const link = await issueLink({ people, clock: systemClock, publicUrl: config.publicUrl }, user, 'sign_in');
  return { ...owner, sign_in_url: link.url, expires_at: link.expiresAt };
}

function intOption(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new CliError(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

export function demoJson(r: DemoResult): Record<string, unknown> {
  return {
    ...(r.owner ? { owner: r.owner } : {}),
    workspaces: r.workspaces,
    tokens: r.tokens,
    from: r.from,
    to: r.to,
    imported: r.import.imported,
    rejected: r.import.rejected,
    skipped: r.import.skipped,
  };
}

export function demoText(r: DemoResult): string {
  const head = `Demo loaded: ${r.import.imported} events from ${r.from} to ${r.to} (${r.import.skipped} skipped by the strict profile).`;
  return [head, catalogLines(r)].join('\n');
}

/** The demo's workspaces, sites and tokens, while its traffic is still to load (`npm start`). */
export function demoCatalogText(r: Omit<DemoResult, 'import'>): string {
  return [`Demo seeded; its traffic from ${r.from} to ${r.to} is loading in the background (newest week first).`, catalogLines(r)].join(
    '\n',
  );
}

function catalogLines(r: Omit<DemoResult, 'import'>): string {
  const lines: string[] = [];
  for (const w of r.workspaces) {
    lines.push(`\n${w.name} [${w.plan}] ${w.workspace_id}`);
    for (const s of w.sites)
      lines.push(
        `  site ${s.site_id}  ${s.hostname}  ${s.profile}${s.profile_effective_at ? ` since ${s.profile_effective_at}` : ''}${s.tenants.length ? `  tenants ${s.tenants.join(', ')}` : ''}`,
      );
  }
  if (r.owner) {
    lines.push(`\nDemo owner (owns every demo workspace): ${r.owner.email}`);
    if (r.owner.sign_in_url)
      lines.push(
        `  one-time sign-in link, valid until ${r.owner.expires_at}:\n    ${r.owner.sign_in_url}`,
        `  later: footfall user reset-password --email ${r.owner.email}`,
      );
  }
  lines.push('\nTokens (secrets are shown only now; only their hashes are stored):');
  for (const t of r.tokens) lines.push(`  ${t.label}\n    ${t.token_id}  ${t.secret}`);
  return lines.join('\n');
}
