// `footfall demo [--seed N] [--days N]`: loads the demo workspaces, sites, goals, tokens and
// traffic (docs/product.md §2), then prints the tokens (their secrets are shown only now).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import { seedDemo, type DemoResult } from '../ingest/demo/seed-demo.js';
import { openImportStores } from '../container.js';
import { createProgressBar, noProgress } from '../ingest/pipeline/progress-bar.js';
import { commandConfig, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';

/** Written once the demo is loaded, so a second run cannot load it twice. */
export const DEMO_MARKER_FILE = 'demo-loaded.json';

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
  opts: { seed: number; days: number; progress?: NodeJS.WriteStream | null; nowMs?: number },
): Promise<DemoResult> {
  const marker = path.join(config.dataDir, DEMO_MARKER_FILE);
  if (fs.existsSync(marker)) throw new CliError(`the demo is already loaded in ${config.dataDir}`, 'CONFLICT', 1);
  const stores = await openImportStores(config);
  try {
    const bar = opts.progress ? createProgressBar(opts.progress, null, 'demo traffic') : noProgress;
    const result = await seedDemo({
      catalog: stores.catalog,
      sink: await stores.target.begin(),
      seed: opts.seed,
      days: opts.days,
      nowMs: opts.nowMs ?? Date.now(),
      onProgress: (p) => bar.update(p),
    });
    bar.done();
    fs.writeFileSync(marker, JSON.stringify({ seed: opts.seed, days: opts.days, loaded_at: new Date().toISOString() }) + '\n');
    return result;
  } finally {
    await stores.close();
  }
}

function intOption(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new CliError(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

export function demoJson(r: DemoResult): Record<string, unknown> {
  return { workspaces: r.workspaces, tokens: r.tokens, from: r.from, to: r.to, imported: r.import.imported, rejected: r.import.rejected, skipped: r.import.skipped };
}

export function demoText(r: DemoResult): string {
  const head = `Demo loaded: ${r.import.imported} events from ${r.from} to ${r.to} (${r.import.skipped} skipped by the strict profile).`;
  return [head, catalogLines(r)].join('\n');
}

/** The demo's workspaces, sites and tokens, while its traffic is still to load (`npm start`). */
export function demoCatalogText(r: Omit<DemoResult, 'import'>): string {
  return [`Demo seeded; its traffic from ${r.from} to ${r.to} is loading in the background (newest week first).`, catalogLines(r)].join('\n');
}

function catalogLines(r: Omit<DemoResult, 'import'>): string {
  const lines: string[] = [];
  for (const w of r.workspaces) {
    lines.push(`\n${w.name} [${w.plan}] ${w.workspace_id}`);
    for (const s of w.sites)
      lines.push(`  site ${s.site_id}  ${s.hostname}  ${s.profile}${s.profile_effective_at ? ` since ${s.profile_effective_at}` : ''}${s.tenants.length ? `  tenants ${s.tenants.join(', ')}` : ''}`);
  }
  lines.push('\nTokens (secrets are shown only now; only their hashes are stored):');
  for (const t of r.tokens) lines.push(`  ${t.label}\n    ${t.token_id}  ${t.secret}`);
  return lines.join('\n');
}
