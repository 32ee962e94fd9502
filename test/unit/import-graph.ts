// The import graph of src/ read with regular expressions (no compiler: the whole tree reads in a few
// milliseconds), and the check of that graph against layer rules, for architecture.test.ts.
import fs from 'node:fs';
import path from 'node:path';

export interface ImportEdge {
  /** importing file, relative to the repository root, with forward slashes */
  from: string;
  /** the specifier as written */
  specifier: string;
  /** the file it resolves to (relative to the repository root), or null when no file matches */
  to: string | null;
  line: number;
}

// `import x from '…'`, `import type { A,\n B } from '…'`, `import '…'`, `export * from '…'`,
// `export { a } from '…'`: a statement starts a line (or follows `;`), and the clause before `from`
// holds only names, braces, commas, `*`, `as`, `type` and whitespace (newlines included).
const STATIC = /(?:^|;)[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$*{},\s]+?\s+from\s*)?['"]([^'"\n]+)['"]/gm;
// `import('…')` with a literal: a specifier built at run time cannot be checked.
const DYNAMIC = /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
// `new URL('./x.js', import.meta.url)`: a file loaded by address (workers, assets) is a dependency too.
const URL_REF = /\bnew\s+URL\s*\(\s*['"]([^'"\n]+)['"]\s*,\s*import\.meta\.url\s*\)/g;

/** Specifiers a source text imports, with the line each one is on. */
export function importsOf(source: string): { specifier: string; line: number }[] {
  const found: { specifier: string; index: number }[] = [];
  for (const re of [STATIC, DYNAMIC, URL_REF]) {
    for (const m of source.matchAll(re)) found.push({ specifier: m[1], index: m.index + m[0].lastIndexOf(m[1]) });
  }
  return found
    .sort((a, b) => a.index - b.index)
    .map(({ specifier, index }) => ({ specifier, line: source.slice(0, index).split('\n').length }));
}

/** `./x.js` written in a .ts file names x.ts; a folder names its index. */
function resolveFile(root: string, fromFile: string, specifier: string): string | null {
  const base = path.resolve(root, path.dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')];
  const hit = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  return hit ? path.relative(root, hit).split(path.sep).join('/') : null;
}

const SOURCE = /\.(ts|mts|js|mjs)$/;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : SOURCE.test(e.name) ? [full] : [];
  });
}

/** Every relative import of every source file under `root/srcDir`; packages and node: builtins are left out. */
export function readImportGraph(root: string, srcDir = 'src'): { files: string[]; edges: ImportEdge[] } {
  const files = walk(path.join(root, srcDir))
    .map((f) => path.relative(root, f).split(path.sep).join('/'))
    .sort();
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const { specifier, line } of importsOf(fs.readFileSync(path.join(root, from), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      edges.push({ from, specifier, to: resolveFile(root, from, specifier), line });
    }
  }
  return { files, edges };
}

export interface LayerMap {
  /** top-level folder of src/ (`engines`) or top-level file (`main.ts`) -> layer */
  [entry: string]: string;
}

/** The layer of a file under src/, or null when its top-level folder or file was given none. */
export function layerOf(file: string, layers: LayerMap, srcDir = 'src'): string | null {
  const rel = path.posix.relative(srcDir, file);
  if (rel.startsWith('..')) return null;
  return layers[rel.split('/')[0]] ?? null;
}

/** A forbidden edge: `from` may not import `to`, for the reason given. */
export interface LayerRule {
  from: string;
  to: string;
  why: string;
}

/**
 * Everything the graph does that the rules forbid, one line each, naming file, line and import:
 * a file in no layer, an import that resolves to no file or leaves src/, and every forbidden edge.
 */
export function violations(
  graph: { files: string[]; edges: ImportEdge[] },
  layers: LayerMap,
  rules: readonly LayerRule[],
  srcDir = 'src',
): string[] {
  const out: string[] = [];
  for (const f of graph.files) {
    if (layerOf(f, layers, srcDir) === null) out.push(`${f} is in no layer: give its top-level folder (or file) of ${srcDir}/ a layer`);
  }
  for (const e of graph.edges) {
    const where = `${e.from}:${e.line} imports '${e.specifier}'`;
    if (e.to === null) {
      out.push(`${where}, which resolves to no file`);
      continue;
    }
    const from = layerOf(e.from, layers, srcDir);
    const to = layerOf(e.to, layers, srcDir);
    if (from === null) continue; // reported above
    if (to === null) {
      out.push(`${where} (${e.to}), which is in no layer`);
      continue;
    }
    const why = rules.filter((r) => r.from === from && r.to === to).map((r) => r.why);
    if (why.length) out.push(`${where}: ${from} never imports ${to} (${[...new Set(why)].join('; ')})`);
  }
  return out;
}
