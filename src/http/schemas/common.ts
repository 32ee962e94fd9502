// Schema helpers and the error envelope shared by every route.
import { Type, type TSchema, type Static, type TUnsafe } from '@sinclair/typebox';
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';
import { DATE_FORMAT_HINT } from '../../domain/report-range.js';

/** A string enum as one `enum` keyword (reads better in OpenAPI than anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A schema with a name: the OpenAPI document states it once, as #/components/schemas/<title>, and
 * a generated client gets a type of that name (http/openapi/hoist-components.ts).
 */
export function Named<T extends TSchema>(title: string, schema: T): T {
  return { ...schema, title };
}

/** JSON Schema 2020-12 / OpenAPI 3.1 nullable: a type list with 'null'. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema;
  if (typeof type !== 'string') throw new Error('Nullable needs a schema with a single type');
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

export const LEVELS = ['none', 'limited', 'standard', 'guardrailed', 'advanced', 'custom'] as const;
export const Level = StringEnum(LEVELS, { title: 'Level' });
export const ProfileSchema = StringEnum(['strict', 'extended'] as const, { title: 'CollectionProfile' });
export const DataEnvelopeSchema = StringEnum(['strict', 'extended', 'mixed'] as const, { title: 'DataEnvelope' });
export const DateTime = Type.String({ format: 'date-time' });
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
/** YYYY-MM-DD; calendar validity (no 2025-02-30) is checked where the date is used. */
export const DateParam = Type.String({ pattern: DATE_PATTERN, description: 'UTC date, YYYY-MM-DD' });

/** What a parameter's pattern asks for, in words: a 422 says this rather than the regular expression. */
export const PATTERN_WORDS: Readonly<Record<string, string>> = { [DATE_PATTERN]: DATE_FORMAT_HINT };

export const Period = Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'UTC month, YYYY-MM' });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: StringEnum(Object.keys(ERROR_CATALOG) as ErrorCode[], {
        title: 'ErrorCode',
        description: 'A code of the closed error catalog',
      }),
      message: Type.String({ description: 'Human-readable; may name the parameter or the rule' }),
      request_id: Type.String({ description: 'Equals the X-Request-Id response header' }),
      details: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Per code: see the error table' })),
    }),
  },
  { title: 'ErrorEnvelope', description: 'Every error response: one error object' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

/** Response schemas for the error statuses a route documents. */
export function errorResponses(statuses: readonly number[]): Record<number, typeof ErrorEnvelope> {
  const out: Record<number, typeof ErrorEnvelope> = {};
  for (const s of statuses) {
    const codes = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => ERROR_CATALOG[c].status === s);
    out[s] = { ...ErrorEnvelope, description: `Error: ${codes.join(', ')}` };
  }
  return out;
}
