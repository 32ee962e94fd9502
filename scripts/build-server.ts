// `npm run build:server` (run by prepare, pretest and prestart): the server and the command line as
// plain JavaScript, src/X.ts -> dist/X.js, one file each (no bundle), and src/'s other files (the tracker
// script, the OpenAPI examples) copied beside them; a few packages (VENDORED) bundled into dist/vendor. dist/ mirrors src/ at the same depth, so paths a
// module finds from its own URL (../../package.json, ../../dist/web) hold in both. esbuild only strips
// the types (under a second for the whole tree); `npm run typecheck` is the type check. src/client is
// left to build:client, which also writes its declarations. Nothing is written while dist/ is as new
// as src/, and a file is replaced whole, so a start does not pull modules from under a running footfall.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
/** What the last build wrote, so the next one removes what no longer has a source. */
const MANIFEST = path.join(DIST, '.server-build.json');
/** Folders of src/ built by others. */
const SKIP = new Set(['client']);
/**
 * Packages bundled into one file each, dist/vendor/<name>.js, which dist/ imports instead of the
 * package: Node resolves and reads an ES package file by file at every start, and kysely's 262 files
 * cost a control-plane command ~110 ms where its bundle costs ~10 ms. Only dist/ sees the bundle;
 * tsx and the type check use the package.
 */
export const VENDORED = ['kysely'] as const;
const VENDOR = path.join(DIST, 'vendor');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return dir === SRC && SKIP.has(e.name) ? [] : walk(full);
    return [full];
  });
}

/**
 * Each source file of src/ and the file of dist/ it becomes. Two sources that would become one file (x.ts
 * and a plain x.js beside it) are refused: the copy would overwrite the module, or the module the copy.
 */
export function serverSources(): { source: string; output: string }[] {
  return outputsOf(walk(SRC));
}

/** The dist/ file of each source file of src/ (serverSources), refusing two that would become one. */
export function outputsOf(files: readonly string[]): { source: string; output: string }[] {
  const sources = files
    .filter((f) => !f.endsWith('.d.ts'))
    .map((source) => {
      const rel = path.relative(SRC, source);
      return { source, output: path.join(DIST, rel.endsWith('.ts') ? rel.replace(/\.ts$/, '.js') : rel) };
    });
  const seen = new Map<string, string>();
  for (const { source, output } of sources) {
    const other = seen.get(output);
    if (other)
      throw new Error(
        `build:server: ${path.relative(ROOT, other)} and ${path.relative(ROOT, source)} would both become ${path.relative(ROOT, output)}: rename one`,
      );
    seen.set(output, source);
  }
  return sources;
}

/** Each vendored package (its package.json stands for its version) and its bundle in dist/vendor. */
export function vendorSources(): { source: string; output: string }[] {
  return VENDORED.map((name) => ({
    source: path.join(ROOT, 'node_modules', name, 'package.json'),
    output: path.join(VENDOR, `${name}.js`),
  }));
}

/** Source files whose output is missing or older than they are: the build is stale when any is listed. */
export function staleOutputs(): string[] {
  const mtime = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs;
  return [...serverSources(), ...vendorSources()]
    .filter(({ source, output }) => {
      const built = mtime(output);
      return built === undefined || built < mtime(source)!;
    })
    .map(({ source }) => path.relative(ROOT, source));
}

/** `from "kysely"` (and `import("kysely")`) in esbuild's output, for each vendored package. */
const VENDORED_IMPORT = new RegExp(`(\\b(?:from|import)\\s*\\(?\\s*)"(${VENDORED.join('|')})"`, 'g');

/** A compiled module of dist/ importing the vendored bundles by relative path instead of the packages. */
export function useVendored(file: string, code: string): string {
  return code.replace(VENDORED_IMPORT, (_, head: string, name: string) => {
    const rel = path
      .relative(path.dirname(file), path.join(VENDOR, `${name}.js`))
      .split(path.sep)
      .join('/');
    return `${head}"${rel.startsWith('.') ? rel : `./${rel}`}"`;
  });
}

async function buildVendored(): Promise<void> {
  for (const name of VENDORED) {
    const result = await build({
      absWorkingDir: ROOT,
      stdin: { contents: `export * from '${name}';`, resolveDir: ROOT, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
      write: false,
      outfile: path.join(VENDOR, `${name}.js`),
    });
    for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  }
}

/** Replaces a file whole: a footfall process importing it meanwhile reads the old or the new one, never half. */
function writeWhole(file: string, contents: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

export async function buildServer(): Promise<{ files: number; ms: number; skipped: boolean }> {
  const started = performance.now();
  const sources = serverSources();
  const previous: string[] = fs.existsSync(MANIFEST) ? (JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as { files: string[] }).files : [];
  const outputs = new Set([...sources, ...vendorSources()].map((s) => path.relative(DIST, s.output)));
  const gone = previous.filter((rel) => !outputs.has(rel));
  // dist/ already mirrors src/: prestart leaves alone the files a running footfall may still import.
  if (previous.length && !gone.length && !staleOutputs().length)
    return { files: sources.length, ms: Math.round(performance.now() - started), skipped: true };
  for (const rel of gone) fs.rmSync(path.join(DIST, rel), { force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: sources.filter((s) => s.source.endsWith('.ts')).map((s) => s.source),
    outdir: DIST,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
    write: false,
  });
  await buildVendored();
  for (const file of result.outputFiles) writeWhole(file.path, Buffer.from(useVendored(file.path, file.text)));
  for (const { source, output } of sources) if (!source.endsWith('.ts')) writeWhole(output, fs.readFileSync(source));
  fs.writeFileSync(MANIFEST, JSON.stringify({ files: [...outputs].sort() }) + '\n');
  return { files: sources.length, ms: Math.round(performance.now() - started), skipped: false };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { files, ms, skipped } = await buildServer();
  process.stderr.write(
    skipped
      ? `build:server: dist/ is up to date with src/ (${files} files)\n`
      : `build:server: ${files} files of src/ into dist/ in ${ms} ms\n`,
  );
}
