// Checks every response a test sees against the app's own OpenAPI document: the status is documented
// for the operation, the body matches its schema (or is of another media type the operation documents),
// the headers it declares required are there.
import assert from 'node:assert/strict';
import AjvModule from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

type Json = Record<string, any>;
const Ajv2020 = (AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule;
const addFormats = (formatsModule as unknown as { default?: typeof formatsModule }).default ?? formatsModule;

export interface OpenApiChecker {
  doc: Json;
  /** asserts the response is one the document describes for this method and path */
  check(method: string, url: string, res: LightMyRequestResponse): void;
}

const DOC_ID = 'openapi.json';

/** `#/a/b~1c` -> the node it points at in the document. */
export function resolvePointer(doc: Json, ref: string): Json {
  assert.ok(ref.startsWith('#/'), `only local refs: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>((node, part) => {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      assert.ok(node && key in node, `dangling $ref ${ref}`);
      return node[key];
    }, doc);
}

/** A response object, following a $ref to #/components/responses. */
export function resolveResponse(doc: Json, response: Json): Json {
  return typeof response?.$ref === 'string' ? resolvePointer(doc, response.$ref) : response;
}

export function openApiValidator(doc: Json) {
  const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true });
  (addFormats as any)(ajv);
  // The whole document is one schema resource: a $ref such as #/components/schemas/X inside any
  // schema resolves against it.
  ajv.addSchema(doc, DOC_ID);
  const cache = new Map<string, (v: unknown) => boolean>();
  /** validator of the schema at a JSON pointer of the document */
  return (pointer: string) => {
    let fn = cache.get(pointer);
    if (!fn) cache.set(pointer, (fn = ajv.compile({ $ref: `${DOC_ID}${pointer}` })));
    return fn as ((v: unknown) => boolean) & { errors?: unknown };
  };
}

const pointerEscape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export async function openApiChecker(app: FastifyInstance): Promise<OpenApiChecker> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200, 'the OpenAPI document is served');
  const doc = res.json() as Json;
  const validator = openApiValidator(doc);
  return {
    doc,
    check(method, url, r) {
      const path = url.split('?')[0];
      assert.ok(r.headers['x-request-id'], `${method} ${url}: X-Request-Id header`);
      const op = doc.paths?.[path]?.[method.toLowerCase()];
      let pointer: string;
      let response: Json;
      if (op) {
        const declared = op.responses?.[String(r.statusCode)];
        assert.ok(declared, `${method} ${path}: status ${r.statusCode} is not documented`);
        pointer =
          typeof declared.$ref === 'string'
            ? declared.$ref.slice(1)
            : `/paths/${pointerEscape(path)}/${method.toLowerCase()}/responses/${r.statusCode}`;
        response = resolveResponse(doc, declared);
      } else {
        assert.ok([404, 405].includes(r.statusCode), `${method} ${path}: undocumented operation answered ${r.statusCode}`);
        pointer = `/components/responses/${r.statusCode === 404 ? 'NotFound' : 'MethodNotAllowed'}`;
        response = resolvePointer(doc, `#${pointer}`);
      }
      for (const [name, h] of Object.entries<Json>(response.headers ?? {}))
        if (h.required)
          assert.ok(
            r.headers[name.toLowerCase()] !== undefined,
            `${method} ${url} ${r.statusCode}: header ${name} is documented as required`,
          );
      if (method === 'HEAD') {
        assert.equal(r.body, '', `${method} ${url}: no body`);
        assert.ok(Number(r.headers['content-length']) > 0, `${method} ${url}: Content-Length says what GET would send`);
        return;
      }
      // Another media type the operation documents (text/csv): its schema is the whole body as one string.
      const type = String(r.headers['content-type'] ?? '')
        .split(';')[0]
        .trim();
      if (type !== 'application/json' && response.content?.[type]) {
        assert.equal(response.content[type].schema?.type, 'string', `${method} ${path} ${r.statusCode}: ${type} schema`);
        assert.ok(r.statusCode < 400, `${method} ${url} ${r.statusCode}: errors are JSON envelopes, not ${type}`);
        return;
      }
      assert.ok(response.content?.['application/json']?.schema, `${method} ${path} ${r.statusCode}: no JSON schema`);
      const validate = validator(`#${pointer}/content/application~1json/schema`);
      const body = r.json();
      assert.ok(
        validate(body),
        `${method} ${url} ${r.statusCode} does not match the document: ${JSON.stringify(validate.errors)}\n${r.body.slice(0, 500)}`,
      );
      // /healthz reports 503 in its own documented shape; every other error is the envelope.
      if (r.statusCode >= 400 && path !== '/healthz') assert.equal(body.error.request_id, r.headers['x-request-id']);
    },
  };
}
