// `npm run bench [-- file-name…]`: runs every bench module in this folder (each exports `name` and
// `run(): Promise<BenchRow[]>`), then prints one table. Speed lives here, never in tests.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type BenchRow = { bench: string; case: string } & Record<string, string | number>;

interface BenchModule {
  name: string;
  run(): Promise<BenchRow[]>;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const only = process.argv.slice(2);
  const files = fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.d.ts'))
    .sort();
  const rows: BenchRow[] = [];
  let failed = false;
  for (const file of files) {
    const base = file.replace(/\.ts$/, '');
    if (only.length && !only.includes(base)) continue; // by file name, so a broken neighbour is not even loaded
    try {
      const mod = (await import(pathToFileURL(path.join(here, file)).href)) as Record<string, unknown>;
      const benches = benchesOf(base, mod);
      if (!benches) continue; // a helper, not a bench
      process.stderr.write(`bench ${benches.name}…\n`);
      rows.push(...(await benches.run()));
    } catch (err) {
      failed = true;
      process.stderr.write(`bench ${base} failed: ${(err as Error).stack ?? err}\n`);
    }
  }
  printTable(rows);
  process.exitCode = failed ? 1 : 0;
}

/**
 * A module is a bench when it exports `name` and `run()`, or (simpler) functions named bench*
 * taking no required argument and resolving to an object: its top-level numbers and strings
 * become one row.
 */
function benchesOf(file: string, mod: Record<string, unknown>): BenchModule | null {
  if (typeof mod.run === 'function') return { name: typeof mod.name === 'string' ? mod.name : file, run: mod.run as BenchModule['run'] };
  const fns = Object.entries(mod).filter(([k, v]) => /^bench[A-Z]/.test(k) && typeof v === 'function');
  if (!fns.length) return null;
  return {
    name: file,
    run: async () => {
      const rows: BenchRow[] = [];
      for (const [k, fn] of fns) {
        const result = (await (fn as () => Promise<Record<string, unknown>>)()) ?? {};
        const row: BenchRow = { bench: file, case: k };
        for (const [f, v] of Object.entries(result)) if (typeof v === 'number' || typeof v === 'string') row[f] = v;
        rows.push(row);
      }
      return rows;
    },
  };
}

export function printTable(rows: BenchRow[]): void {
  if (!rows.length) return void process.stdout.write('no bench results\n');
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => (v === undefined ? '' : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => '| ' + vals.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |';
  const out = [
    line(cols),
    '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|',
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
  ];
  process.stdout.write(out.join('\n') + '\n');
}
