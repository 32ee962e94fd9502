// Checks every response a test sees against the app's own OpenAPI document.
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

export async function openApiChecker(app: FastifyInstance): Promise<OpenApiChecker> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200, 'the OpenAPI document is served');
  const doc = res.json() as Json;
  const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true });
  (addFormats as any)(ajv);
  const cache = new Map<object, (v: unknown) => boolean>();
  const compile = (schema: object) => {
    let fn = cache.get(schema);
    if (!fn) cache.set(schema, (fn = ajv.compile(schema)));
    return fn!;
  };
  return {
    doc,
    check(method, url, r) {
      const path = url.split('?')[0];
      assert.ok(r.headers['x-request-id'], `${method} ${url}: X-Request-Id header`);
      const op = doc.paths?.[path]?.[method.toLowerCase()];
      let schema: object | undefined;
      if (op) {
        const response = op.responses?.[String(r.statusCode)];
        assert.ok(response, `${method} ${path}: status ${r.statusCode} is not documented`);
        schema = response.content?.['application/json']?.schema;
      } else {
        assert.ok([404, 405].includes(r.statusCode), `${method} ${path}: undocumented operation answered ${r.statusCode}`);
        schema = doc.components.schemas.ErrorEnvelope;
      }
      if (method === 'HEAD') return; // no body to check
      assert.ok(schema, `${method} ${path} ${r.statusCode}: no JSON schema`);
      const validate = compile(schema!) as ((v: unknown) => boolean) & { errors?: unknown };
      const body = r.json();
      assert.ok(validate(body), `${method} ${url} ${r.statusCode} does not match the document: ${JSON.stringify(validate.errors)}\n${r.body.slice(0, 500)}`);
      // /healthz reports 503 in its own documented shape; every other error is the envelope.
      if (r.statusCode >= 400 && path !== '/healthz') assert.equal(body.error.request_id, r.headers['x-request-id']);
    },
  };
}
