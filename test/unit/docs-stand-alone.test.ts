// The repo's docs and comments stand alone: a person who clones it can follow every pointer. No
// reference to documents kept outside the repository, every docs/<name>.md or docs/<folder>/<name>.md
// named exists, every relative link of a file under docs/ resolves from that file's folder, and every
// `docs/product.md §N` names a section docs/product.md has. The patterns are assembled from pieces
// so that this file does not trip its own rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'web', 'test', 'bench', 'scripts', 'docs', 'README.md'];
const TEXT_EXTENSIONS = new Set(['.ts', '.js', '.mjs', '.cjs', '.md', '.json', '.sh', '.yaml', '.yml', '.txt', '.html', '.css', '.sql']);
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git']);

const D = 'DES' + 'IGN';
const SHARED = '..' + '/shared';
const DOCS = 'docs' + '/';
const PRODUCT = DOCS + 'product.md';
const SPEC = 'spec' + '.md';
const SECTION = '\u00a7';

/** Documents that live outside the repository: never a pointer a reader can follow. */
const OUTSIDE: readonly { re: RegExp; what: string }[] = [
  { re: new RegExp(`\\b${D}\\s+\\d`), what: `"${D} <n>" names a section of a document outside the repo` },
  { re: new RegExp(`\\b${D}\\.md\\b`), what: `${D}.md is not in the repo` },
  { re: new RegExp(SHARED.replace(/[./]/g, '\\$&')), what: `${SHARED} is outside the repo` },
  {
    re: new RegExp(`(?<![\\w/.-])${SPEC.replace('.', '\\.')}\\b`),
    what: `${SPEC} is not in the repo (the API contract is the OpenAPI document)`,
  },
];

export interface RepoFacts {
  /** whether docs/<name> exists (name may hold folders: "decisions/rollups.md", "../README.md") */
  docExists(name: string): boolean;
  /** section numbers of docs/product.md: "7", "8.12", ... */
  productSections: ReadonlySet<string>;
}

/** Section numbers of a product.md text: `## 7. Title` gives "7", `### 8.12 Title` gives "8.12". */
export function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s/gm)) out.add(m[1]);
  return out;
}

/** A relative link of a file under docs/, as a path from docs/: `../api.md` in a page of docs/decisions/ is "api.md". */
function fromDocs(file: string, target: string): string {
  return path.posix.relative('docs', path.posix.join(path.posix.dirname(file), target));
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Every broken pointer of one file, as `file:line: problem`. A section sign counts as a pointer into
 * docs/product.md when the nearest `.md` named before it on its line or the line above is
 * docs/product.md (or product.md, from docs/), or, inside docs/product.md, when none is.
 */
export function findProblems(file: string, text: string, facts: RepoFacts): string[] {
  const problems: string[] = [];
  const report = (index: number, what: string) => problems.push(`${file}:${lineAt(text, index)}: ${what}`);
  for (const { re, what } of OUTSIDE) {
    for (const m of text.matchAll(new RegExp(re.source, 'g'))) report(m.index!, what);
  }
  for (const m of text.matchAll(/(?<![\w.-])docs\/((?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_.-]+?\.md)\b/g)) {
    if (!facts.docExists(m[1])) report(m.index!, `${DOCS}${m[1]} does not exist`);
  }
  if (file.startsWith('docs/')) {
    for (const m of text.matchAll(/\]\(((?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_.-]+\.md)(#[^)]*)?\)/g)) {
      const target = fromDocs(file, m[1]);
      if (facts.docExists(target)) continue;
      report(m.index!, `link to ${m[1]}, which does not exist in docs/${target === m[1] ? '' : ` (it resolves to ${DOCS}${target})`}`);
    }
  }
  const inProduct = file === PRODUCT;
  for (const m of text.matchAll(new RegExp(`${SECTION}(\\d+(?:\\.\\d+)*)`, 'g'))) {
    const lineStart = text.lastIndexOf('\n', m.index! - 1);
    const before = text.slice(lineStart <= 0 ? 0 : text.lastIndexOf('\n', lineStart - 1) + 1, m.index!);
    const named = [...before.matchAll(/[\w./-]+\.md\b/g)].at(-1)?.[0];
    const intoProduct =
      named === undefined ? inProduct : named.endsWith(PRODUCT) || (file.startsWith('docs/') && DOCS + fromDocs(file, named) === PRODUCT);
    if (intoProduct && !facts.productSections.has(m[1])) report(m.index!, `${PRODUCT} has no section ${SECTION}${m[1]}`);
  }
  return problems;
}

function walk(rel: string, out: string[]): void {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return;
  if (!fs.statSync(abs).isDirectory()) {
    out.push(rel);
    return;
  }
  for (const name of fs.readdirSync(abs)) if (!SKIPPED_DIRS.has(name)) walk(path.posix.join(rel, name), out);
}

/** Tracked and new (not ignored) files under the scanned roots; a plain walk where git is not at hand. */
function repoTextFiles(): string[] {
  let files: string[];
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...SCANNED], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    files = [...new Set(listed.split('\0').filter(Boolean))];
  } catch {
    files = [];
    for (const root of SCANNED) walk(root, files);
  }
  return files.filter((f) => {
    if (f.split('/').some((part) => SKIPPED_DIRS.has(part))) return false;
    if (!TEXT_EXTENSIONS.has(path.extname(f))) return false;
    const abs = path.join(ROOT, f);
    return fs.existsSync(abs) && fs.statSync(abs).isFile();
  });
}

function repoFacts(): RepoFacts {
  return {
    docExists: (name) => fs.existsSync(path.join(ROOT, 'docs', name)),
    productSections: sectionsOf(fs.readFileSync(path.join(ROOT, PRODUCT), 'utf8')),
  };
}

test('docs/product.md has numbered sections 1 to 9', () => {
  const sections = repoFacts().productSections;
  for (let n = 1; n <= 9; n++) assert.ok(sections.has(String(n)), `section ${n} is missing`);
});

test('no file points outside the repo, at a missing doc or at a missing product section', () => {
  const facts = repoFacts();
  const files = repoTextFiles();
  assert.ok(files.includes('README.md') && files.some((f) => f.startsWith('src/')), 'the scan found the repo files');
  const problems = files.flatMap((f) => findProblems(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), facts));
  assert.deepEqual(problems, [], `broken pointers:\n${problems.join('\n')}`);
});

test('the checker reports each kind of broken pointer, with its line', () => {
  const docs = new Set(['metrics.md', 'product.md', 'decisions/rollups.md']);
  const facts: RepoFacts = { docExists: (name) => docs.has(name), productSections: new Set(['4', '4.6', '8']) };
  const text = [
    '// fine: docs/metrics.md and ' + PRODUCT + ` ${SECTION}4.6, ${SECTION}8`,
    `// the rows (${D} 8 "Rows")`,
    `// see ${D}.md and ${SHARED}/ARCHITECTURE.md`,
    `// the contract is ${SPEC} beside this repo`,
    `// details: ${DOCS}nowhere.md`,
    `// ${PRODUCT} ${SECTION}4.6 and ${SECTION}9.1`,
    '//',
    `// RFC 9110 ${SECTION}15 is not ours`,
    `// fine: ${DOCS}decisions/rollups.md; missing: ${DOCS}decisions/nowhere.md`,
  ].join('\n');
  assert.deepEqual(findProblems('src/x.ts', text, facts), [
    `src/x.ts:2: "${D} <n>" names a section of a document outside the repo`,
    `src/x.ts:3: ${D}.md is not in the repo`,
    `src/x.ts:3: ${SHARED} is outside the repo`,
    `src/x.ts:4: ${SPEC} is not in the repo (the API contract is the OpenAPI document)`,
    `src/x.ts:5: ${DOCS}nowhere.md does not exist`,
    `src/x.ts:9: ${DOCS}decisions/nowhere.md does not exist`,
    `src/x.ts:6: ${PRODUCT} has no section ${SECTION}9.1`,
  ]);
  const guide = `${DOCS}guide.md`;
  assert.deepEqual(
    findProblems(guide, `See [the rules](product.md) ${SECTION}4,\n[gone](old.md), [rules](product.md#x) ${SECTION}7.`, facts),
    [`${guide}:2: link to old.md, which does not exist in docs/`, `${guide}:2: ${PRODUCT} has no section ${SECTION}7`],
  );
  assert.deepEqual(findProblems(guide, '[rollups](decisions/rollups.md), [gone](decisions/old.md)', facts), [
    `${guide}:1: link to decisions/old.md, which does not exist in docs/`,
  ]);
  const nested = `${DOCS}decisions/guide.md`;
  const nestedText = `[metrics](../metrics.md#x), [rollups](rollups.md),\n[gone](../old.md), [flat](metrics.md)\n[rules](../product.md) ${SECTION}4 and ${SECTION}7.`;
  assert.deepEqual(findProblems(nested, nestedText, facts), [
    `${nested}:2: link to ../old.md, which does not exist in docs/ (it resolves to ${DOCS}old.md)`,
    `${nested}:2: link to metrics.md, which does not exist in docs/ (it resolves to ${DOCS}decisions/metrics.md)`,
    `${nested}:3: ${PRODUCT} has no section ${SECTION}7`,
  ]);
  assert.deepEqual(findProblems(PRODUCT, `## 4. Semantics\n\nAs ${SECTION}4.6 and ${SECTION}5 say.`, facts), [
    `${PRODUCT}:3: ${PRODUCT} has no section ${SECTION}5`,
  ]);
});

test('section numbers are read from the headings', () => {
  assert.deepEqual([...sectionsOf('# Title\n\n## 1. One\n\n### 1.2 Two\n\ntext ## 3. not a heading\n## 10. Ten\n')], ['1', '1.2', '10']);
});
