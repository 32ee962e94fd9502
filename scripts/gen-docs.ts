// `npm run docs`: writes docs/api.md from the app's OpenAPI document (the same one /openapi.json serves)
// and docs/app-api.md from the management API's (GET /app/api/openapi.json), so neither reference can
// drift from the schemas that validate and serialize. test/unit/api-references.test.ts checks both.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer, openLiveCollection } from '../src/container.js';
import { openSqliteControlPlane } from '../src/control/sqlite/open.js';
import { ERROR_CATALOG } from '../src/domain/errors.js';
import { MANAGE_ERROR_CATALOG } from '../src/domain/manage-errors.js';
import { appApiDocument } from '../src/http/app-api/openapi-document.js';
import { appApiRoutes } from '../src/http/app-api/routes/index.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

export async function openApiDocument(): Promise<Json> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-docs-'));
  const control = await openSqliteControlPlane(':memory:');
  const config = loadConfig({ dataDir, logLevel: 'silent', geoipDb: 'off' }, {});
  const container = await buildContainer(config, { control });
  // with live collection, as a server has it: its routes are in the document too
  const collection = await openLiveCollection(config, container, { intervalMs: 3_600_000 });
  const app = await buildApp({ ...container, collector: collection.collector }, { logger: false });
  try {
    return app.swagger() as Json;
  } finally {
    await app.close();
    await collection.close();
    await container.close();
    await control.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The component a $ref names, else the schema itself. */
function deref(doc: Json, s: Json): Json {
  return typeof s?.$ref === 'string' ? doc.components.schemas[s.$ref.split('/').pop()!] : s;
}

function refName(s: Json): string | undefined {
  return typeof s?.$ref === 'string' ? s.$ref.split('/').pop() : undefined;
}

function typeOf(doc: Json, raw: Json): string {
  if (!raw) return '';
  const s = deref(doc, raw);
  if (s.enum) return s.enum.map((v: string | null) => `\`${v}\``).join(', ');
  if (s.anyOf) return s.anyOf.map((x: Json) => (refName(x) ? `${refName(x)} object` : typeOf(doc, x))).join(' or ');
  const t = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  if (t === 'array') return `array of ${refName(s.items) ? `${refName(s.items)} objects` : typeOf(doc, s.items)}`;
  return s.format ? `${t} (${s.format})` : t;
}

/** One row per field, nested objects (named components included) flattened to dotted paths. */
function fields(doc: Json, schema: Json, prefix = '', out: string[][] = [], depth = 0): string[][] {
  const props = schema?.properties ?? {};
  const required = new Set<string>(schema?.required ?? []);
  for (const [name, raw] of Object.entries<Json>(props)) {
    const s = deref(doc, raw);
    const p = prefix + name;
    const notes = [s.deprecated || raw.deprecated ? 'deprecated' : '', raw.description ?? s.description ?? ''].filter(Boolean).join('; ');
    out.push([`\`${p}\``, typeOf(doc, raw), required.has(name) ? 'yes' : 'no', notes]);
    if (depth > 6) continue;
    if (s.type === 'object') fields(doc, s, `${p}.`, out, depth + 1);
    if (s.type === 'array' && deref(doc, s.items)?.type === 'object') fields(doc, deref(doc, s.items), `${p}[].`, out, depth + 1);
    // compare: the same shape as current, or null: listed once, under current
  }
  return out;
}

function table(head: string[], rows: string[][]): string {
  const esc = (v: string) => v.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join(
    '\n',
  );
}

/** What differs between the two references: where the document is served, how a caller signs, the codes. */
export interface Reference {
  file: string;
  served: string;
  auth(op: Json): string;
  catalog: Record<string, { status: number }>;
  /** a route without parameters answers 422 to any (the read API) */
  strictQuery: boolean;
}

export const READ_API: Reference = {
  file: 'docs/api.md',
  served:
    'The machine-readable document is served at `GET /openapi.json` (OpenAPI 3.1, no auth); `GET /docs` shows it as an interactive page.',
  auth: (op) => (op.security?.length ? 'Auth: `Authorization: Bearer <token>`.' : 'Auth: none.'),
  catalog: ERROR_CATALOG,
  strictQuery: true,
};

export const MANAGEMENT_API: Reference = {
  file: 'docs/app-api.md',
  served: 'The machine-readable document is served at `GET /app/api/openapi.json` (OpenAPI 3.1, no auth).',
  auth: (op) => {
    const schemes = new Set((op.security ?? []).flatMap((r: Json) => Object.keys(r)));
    if (!schemes.has('sessionCookie')) return "Auth: none (no session needed; a browser that sends `Origin` must send the server's own).";
    return schemes.has('csrfToken')
      ? "Auth: the session cookie and `X-CSRF-Token` (the session's `csrf_token`)."
      : 'Auth: the session cookie.';
  },
  catalog: MANAGE_ERROR_CATALOG,
  strictQuery: false,
};

export function renderMarkdown(doc: Json, ref: Reference = READ_API): string {
  const out: string[] = [];
  out.push(
    `# ${doc.info.title}`,
    '',
    '<!-- Generated by `npm run docs` (scripts/gen-docs.ts) from the OpenAPI document. Do not edit. -->',
    '',
  );
  out.push(`Version ${doc.info.version}. ${ref.served}`, '');
  out.push(doc.info.description, '');
  out.push('## Endpoints', '');
  out.push(
    table(
      ['Method', 'Path', 'Operation', 'Summary', 'Statuses'],
      Object.entries<Json>(doc.paths).flatMap(([p, ops]) =>
        Object.entries<Json>(ops).map(([m, op]) => [
          m.toUpperCase(),
          `\`${p}\``,
          `\`${op.operationId}\``,
          op.summary ?? '',
          Object.keys(op.responses).join(', '),
        ]),
      ),
    ),
    '',
  );
  for (const [p, ops] of Object.entries<Json>(doc.paths)) {
    for (const [m, op] of Object.entries<Json>(ops)) {
      out.push(`### ${m.toUpperCase()} ${p}`, '');
      if (op.summary) out.push(`${op.summary} (\`${op.operationId}\`).`, '');
      if (op.description) out.push(op.description, '');
      out.push(ref.auth(op), '');
      const params = (op.parameters ?? []) as Json[];
      const body = op.requestBody?.content;
      if (body) {
        const [media, first] = Object.entries<Json>(body)[0];
        out.push(
          `Request body (${Object.keys(body)
            .map((t) => `\`${t}\``)
            .join(' or ')}): ${deref(doc, first.schema)?.description ?? ''}`,
          '',
        );
        out.push(table(['Field', 'Type', 'Required', 'Notes'], fields(doc, deref(doc, body[media].schema))), '');
      }
      for (const where of ['path', 'query'] as const) {
        const these = params.filter((x) => (x.in ?? 'query') === where);
        if (!these.length || (where === 'query' && body)) continue;
        out.push(`${where === 'path' ? 'Path' : 'Query'} parameters:`, '');
        out.push(
          table(
            ['Name', 'Type', 'Required', 'Notes'],
            these.map((x) => [
              `\`${x.name}\``,
              typeOf(doc, x.schema),
              x.required ? 'yes' : 'no',
              x.schema?.description ?? x.description ?? '',
            ]),
          ),
          '',
        );
      }
      if (!body && !params.length && ref.strictQuery && !op.tags?.includes('Collection'))
        out.push('Query parameters: none (any parameter is answered 422 INVALID_PARAMS).', '');
      const success = Object.keys(op.responses).find((st) => st.startsWith('2')) ?? '200';
      const ok = op.responses[success];
      const schema = ok?.content?.['application/json']?.schema;
      out.push(
        `Response ${success} headers: ${Object.keys(ok?.headers ?? {})
          .map((h) => `\`${h}\``)
          .join(', ')}.`,
        '',
      );
      if (schema)
        out.push(`Response ${success} fields:`, '', table(['Field', 'Type', 'Required', 'Notes'], fields(doc, deref(doc, schema))), '');
      for (const [media, other] of Object.entries<Json>(ok?.content ?? {})) {
        if (media === 'application/json') continue;
        if (schema) out.push(`Also answers \`${media}\` (ask with \`Accept: ${media}\`): ${other.schema?.description ?? ''}`, '');
        else
          out.push(
            `Response ${success} body: \`${media}\`${other.schema?.enum ? ` (${other.schema.enum.map((v: string) => `\`${v}\``).join(', ')})` : ''}. ${ok.description ?? ''}`,
            '',
          );
      }
      const errs = Object.keys(op.responses).filter((st) => st !== success);
      if (errs.length) {
        const rows = errs.map((st) => {
          const codes = Object.keys(ref.catalog).filter((c) => String(ref.catalog[c].status) === st);
          if (p === '/healthz' && st === '503') return [st, 'health body with status `unavailable`, Retry-After'];
          // a route that states its own responses (collection): what the status means
          if (!op.responses[st].$ref && op.responses[st].description) return [st, op.responses[st].description];
          return [st, codes.map((c) => `\`${c}\``).join(', ')];
        });
        out.push('Error statuses (the error envelope):', '', table(['Status', 'Codes'], rows), '');
      }
    }
  }
  return out.join('\n');
}

/** Both references, as `npm run docs` writes them. */
export async function references(): Promise<{ file: string; md: string }[]> {
  return [
    { file: READ_API.file, md: renderMarkdown(await openApiDocument(), READ_API) },
    { file: MANAGEMENT_API.file, md: renderMarkdown(appApiDocument(appApiRoutes), MANAGEMENT_API) },
  ];
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  for (const { file, md } of await references()) {
    const target = path.join(root, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target + '.tmp', md);
    fs.renameSync(target + '.tmp', target); // never a half-written page
    process.stdout.write(`wrote ${file} (${md.length} bytes)\n`);
  }
}
