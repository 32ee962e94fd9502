// Every schema with a `title` becomes a named component (#/components/schemas/<title>) and each use
// of it a $ref, so the document states each shape once and a generated client gets named types. The
// route schemas keep their inline form for Fastify (validation, serialization); only the document
// is rewritten.

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

const REF_PREFIX = '#/components/schemas/';

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with sorted keys: two schemas are the same component when this text is equal. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    isObject(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

/**
 * Replaces titled subschemas under `root` with refs, collecting them in `components`. A title used
 * for two different shapes is a mistake in the schemas and throws.
 */
export function hoistTitledSchemas(root: Json, components: Json): void {
  const seen = new Map<string, string>();
  const visit = (node: unknown, self?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n));
    if (!isObject(node)) return node;
    const title = node.title;
    if (typeof title === 'string' && title !== self && /^[A-Za-z0-9_]+$/.test(title)) {
      const text = canonical(node);
      const known = seen.get(title);
      if (known === undefined) {
        seen.set(title, text);
        components[title] = visit(node, title);
      } else if (known !== text) {
        throw new Error(`OpenAPI: two different schemas are titled "${title}"`);
      }
      return { $ref: REF_PREFIX + title };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      // `example`/`examples` hold values, not schemas: a value with a title property stays as is.
      out[k] = k === 'example' || k === 'examples' ? v : visit(v);
    }
    return out;
  };
  for (const key of Object.keys(root)) root[key] = visit(root[key]);
}
