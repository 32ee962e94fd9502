// Text a store can hold as it was sent. PostgreSQL refuses a NUL character in text (SQLSTATE 22021, a 500
// before this check); a lone UTF-16 surrogate (JSON lets "\ud800" through) is written by both drivers as
// U+FFFD, so the stored value would differ from the one acknowledged. Every way in (the /v1 pipeline,
// the management API, collection, the CLI's writes) refuses both before any store is asked. Pure.

// In u-mode a surrogate pair is one code point, so only lone surrogates match the second class.
const UNSTORABLE = /\u0000|[\uD800-\uDFFF]/u;

/** Why `text` cannot be stored as sent, in words that say what to send instead; null when it can. */
export function unstorableReason(text: string): string | null {
  if (!UNSTORABLE.test(text)) return null;
  return text.includes('\u0000')
    ? 'contains a NUL character (U+0000), which cannot be stored: remove it'
    : 'is not valid Unicode text (it holds a lone UTF-16 surrogate): send it as valid UTF-8';
}

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text);

/**
 * The first string of a JSON value (member names included) a store cannot hold: the dotted path of the
 * value ('' for the value itself; a bad member name gives the path of its object) and why.
 */
export function firstUnstorable(value: unknown, path = ''): { path: string; reason: string } | null {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason === null ? null : { path, reason };
  }
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], path === '' ? String(i) : `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    const reason = unstorableReason(key);
    // the name itself is not echoed: it holds the bad character
    if (reason !== null) return { path, reason: `has a member name that ${reason}` };
    const found = firstUnstorable(member, path === '' ? key : `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/**
 * What a store raises when a value reached it that it cannot hold (PostgreSQL's 22021 and 22P05): the
 * checks above missed a way in. The HTTP layers answer it 422, never 500; the parameter is unknown here.
 */
export class UnstorableTextError extends Error {
  readonly code = 'INVALID_ARGUMENTS';
  readonly exitCode = 2;
  constructor(options?: { cause?: unknown }) {
    super(
      'A value of the request contains a NUL character or is not valid Unicode text, which cannot be stored: remove the NUL, send valid UTF-8.',
      options,
    );
    this.name = 'UnstorableTextError';
  }
}
