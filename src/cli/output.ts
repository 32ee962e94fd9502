// Shared CLI plumbing: one JSON object with --json, readable text otherwise, and
// clean failures (a message and a non-zero exit, never a stack trace).

export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'INVALID_ARGUMENTS',
    readonly exitCode = 2,
    /** printed as the error's `details` with --json */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function emit(json: boolean, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? JSON.stringify(value) + '\n' : text + '\n');
}

/** Prints an error the way every command does and sets the exit code. */
export function fail(json: boolean, err: unknown): void {
  const e = err as { code?: string; message?: string; exitCode?: number; details?: Record<string, unknown> };
  const code = typeof e?.code === 'string' ? e.code : 'ERROR';
  const message = e?.message ?? String(err);
  const details = err instanceof CliError ? err.details : undefined;
  if (json) process.stdout.write(JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }) + '\n');
  process.stderr.write(`footfall: ${message}\n`);
  process.exitCode = e?.exitCode ?? 1;
}
