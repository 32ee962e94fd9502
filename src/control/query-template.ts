// Query shapes compiled once and run with new values. Building and compiling a query with Kysely
// costs more than running the small indexed statements of the request path (token, site, ledger),
// so those are compiled the first time with placeholders and later runs only swap the values in.
// Dialect-independent: the dialect's own compiler produces the SQL, once.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Runs one compiled query: Kysely's executeQuery, or a dialect's faster way (sqlite/dialect.ts). */
export type RunQuery = <R>(query: CompiledQuery<R>) => Promise<QueryResult<R>>;

/** Kysely's own way: through its connection provider. */
export const kyselyRunner =
  <DB>(db: Kysely<DB>): RunQuery =>
  (query) =>
    db.executeQuery(query);

/** Stands for the i-th argument while the shape is compiled. */
class Hole {
  constructor(readonly index: number) {}
}

/**
 * `build` receives placeholders where the values go and must pass each one on as a plain query
 * value (never inspect, compute with, or interpolate it as SQL text). Returns a function that
 * compiles on first use and then yields the same SQL with the given values as its parameters.
 */
export function queryTemplate<A extends unknown[], O>(
  arity: A['length'],
  build: (...args: A) => Compilable<O>,
): (...args: A) => CompiledQuery<O> {
  let compiled: CompiledQuery<O> | undefined;
  // For each parameter of the compiled query: the argument index, or -1 for a constant of the shape.
  let sources: number[] = [];
  return (...args: A): CompiledQuery<O> => {
    if (compiled === undefined) {
      // Holes are no A: they stand in for any argument types, which `build` only passes on (see above).
      const holes = Array.from({ length: arity }, (_, i) => new Hole(i)) as unknown as A;
      const c = build(...holes).compile();
      sources = c.parameters.map((p) => (p instanceof Hole ? p.index : -1));
      for (let i = 0; i < arity; i++)
        if (!sources.includes(i)) throw new Error(`query template: argument ${i} does not reach the SQL as a parameter`);
      compiled = c;
    }
    const base = compiled;
    const parameters = new Array<unknown>(sources.length);
    for (let i = 0; i < sources.length; i++) parameters[i] = sources[i] < 0 ? base.parameters[i] : args[sources[i]];
    return { ...base, parameters };
  };
}
