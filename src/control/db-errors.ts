// Recognizes driver errors by their codes, for every dialect the control plane runs on.

/** A UNIQUE or PRIMARY KEY violation (better-sqlite3 or node-postgres). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
