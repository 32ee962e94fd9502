// Query, body and path checks against a TypeBox schema, for the management API and the read batches:
// the first problem, as 422 INVALID_PARAMS naming the field (never echoing its value: a field may be a
// password or a link's secret), in the envelope of the way in (`refuse`: the management API's
// invalidField by default). A value no store can hold (a NUL, a lone surrogate,
// domain/storable-text.ts) is refused here, whatever the schema lets through.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { invalidField } from '../../domain/manage-errors.js';
import { firstUnstorable, unstorableReason } from '../../domain/storable-text.js';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The 422 of a way in, naming the field or parameter. */
export type Refusal = (field: string, message: string) => Error;

export function checkInput<T extends TSchema>(
  schema: T,
  value: unknown,
  what: 'field' | 'query parameter',
  refuse: Refusal = invalidField,
): Static<T> {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) {
    const bad = firstUnstorable(value);
    if (bad) {
      const field = bad.path || (what === 'field' ? 'body' : 'query');
      throw refuse(field, `Invalid ${what} ${field}: it ${bad.reason}.`);
    }
    return value as Static<T>;
  }
  if (what === 'field' && (typeof value !== 'object' || value === null || Array.isArray(value)))
    throw refuse('body', 'The body must be a JSON object.');
  const first = check.Errors(value).First()!;
  throw describe(first, what, refuse);
}

/** The query parameters a schema takes as a list: a list given once arrives as one string. */
export function arrayParameters(query: TObject | undefined): string[] {
  return Object.entries(query?.properties ?? {})
    .filter(([, schema]) => (schema as TSchema).type === 'array')
    .map(([name]) => name);
}

/** The query with each of `names` given once made a list of one, as the schema wants it. */
export function repeatedAsArrays(query: unknown, names: readonly string[]): unknown {
  if (names.length === 0 || typeof query !== 'object' || query === null) return query ?? {};
  const q = { ...(query as Record<string, unknown>) };
  for (const name of names) if (typeof q[name] === 'string') q[name] = [q[name]];
  return q;
}

/** Path parameters name the resource a route reads or changes: one no store can hold is refused before it is looked up. */
export function checkPathParameters(params: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(params ?? {})) {
    const reason = unstorableReason(value);
    if (reason !== null) throw invalidField(name, `Invalid path parameter ${name}: it ${reason}.`);
  }
}

function describe(e: ValueError, what: string, refuse: Refusal) {
  const field = e.path.replace(/^\//, '').replace(/\//g, '.') || 'body';
  const s = e.schema as { anyOf?: unknown; minLength?: number; maxLength?: number; minItems?: number; maxItems?: number; format?: string };
  let why: string;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      why = 'is required';
      break;
    case ValueErrorType.ObjectAdditionalProperties:
      return refuse(field, `Unknown ${what} ${field}.`);
    case ValueErrorType.Union:
      why =
        Array.isArray(s.anyOf) && s.anyOf.every((x: { const?: unknown }) => typeof x.const === 'string')
          ? `must be one of ${s.anyOf.map((x: { const?: unknown }) => x.const).join(', ')}`
          : 'has the wrong type';
      break;
    case ValueErrorType.StringMinLength:
      why = s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`;
      break;
    case ValueErrorType.StringMaxLength:
      why = `must be at most ${s.maxLength} characters`;
      break;
    case ValueErrorType.ArrayMinItems:
      why = `needs at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
      break;
    case ValueErrorType.ArrayMaxItems:
      why = `takes at most ${s.maxItems} items`;
      break;
    case ValueErrorType.String:
      why = 'must be a string';
      break;
    case ValueErrorType.Boolean:
      why = 'must be true or false';
      break;
    case ValueErrorType.Array:
      why = 'must be an array';
      break;
    case ValueErrorType.Object:
      why = 'must be an object';
      break;
    case ValueErrorType.StringFormat:
      why = s.format === 'date-time' ? 'must be an ISO 8601 instant with a time zone, e.g. 2025-01-31T00:00:00Z' : `must be a ${s.format}`;
      break;
    default:
      why = `is invalid (${e.message.charAt(0).toLowerCase()}${e.message.slice(1)})`;
  }
  return refuse(field, `Invalid ${what} ${field}: it ${why}.`);
}
