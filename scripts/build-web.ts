// `npm run build:web` (run by prepare and pretest): bundles the browser half (web/) with esbuild into
// dist/web/: content-hashed file names, a manifest naming them, and a .br and a .gz beside each file so
// the server sends them as they are (src/http/pages/web-assets.ts). Nothing is built at run time.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WEB_OUT_DIR = path.join(ROOT, 'dist', 'web');

/** What the server and the size test read: logical name -> hashed file, and each file's sizes. */
export interface WebManifest {
  entries: Record<'main.js' | 'main.css' | 'icon.svg', string>;
  files: Record<string, { bytes: number; br: number; gzip: number }>;
}

function compressed(file: string): { bytes: number; br: number; gzip: number } {
  const body = fs.readFileSync(file);
  const br = zlib.brotliCompressSync(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  const gz = zlib.gzipSync(body, { level: zlib.constants.Z_BEST_COMPRESSION });
  fs.writeFileSync(`${file}.br`, br);
  fs.writeFileSync(`${file}.gz`, gz);
  return { bytes: body.length, br: br.length, gzip: gz.length };
}

export async function buildWeb(outDir = WEB_OUT_DIR): Promise<WebManifest> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'web/src/main.tsx' },
    outdir: outDir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    // current browsers: the style sheet's light-dark() needs Chromium 123, Firefox 120, Safari 17.5
    target: ['es2022', 'chrome123', 'firefox120', 'safari17.5'],
    minify: true,
    metafile: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'web/tsconfig.json',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const entries: Partial<WebManifest['entries']> = {};
  for (const out of Object.keys(result.metafile.outputs)) {
    const name = path.basename(out);
    if (/^main-[A-Z0-9]+\.js$/.test(name)) entries['main.js'] = name;
    else if (/^main-[A-Z0-9]+\.css$/.test(name)) entries['main.css'] = name;
  }
  const icon = fs.readFileSync(path.join(ROOT, 'web', 'src', 'icon.svg'));
  const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 10)}.svg`;
  fs.writeFileSync(path.join(outDir, iconName), icon);
  entries['icon.svg'] = iconName;
  if (!entries['main.js'] || !entries['main.css'])
    throw new Error(`esbuild wrote ${Object.keys(result.metafile.outputs).join(', ')}: no main script or style`);

  const files: WebManifest['files'] = {};
  for (const name of Object.values(entries)) files[name] = compressed(path.join(outDir, name));
  const manifest: WebManifest = { entries: entries as WebManifest['entries'], files };
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const manifest = await buildWeb();
  for (const [name, s] of Object.entries(manifest.files)) console.log(`dist/web/${name}  ${s.bytes} B, br ${s.br} B, gzip ${s.gzip} B`);
}
