// Custom properties of an event (Plausible's `props`; docs/decisions/custom-properties.md): read from
// an import line's `props` object or a tracker's `props`/`p`, stored as two parallel arrays sorted by key.
// Pure; the one home of their bounds and of how a value becomes text.
import type { PropArrays } from '../../domain/events.js';

export type { PropArrays };

/** Plausible's own bounds on custom properties. */
export const MAX_PROPS = 30;
export const MAX_PROP_KEY = 300;
export const MAX_PROP_VALUE = 2000;

export type PropsRead = { ok: true; props: Record<string, string> } | { ok: false; reason: string };

/**
 * The props of a parsed JSON value: an object of at most MAX_PROPS keys of 1 to MAX_PROP_KEY characters,
 * each value a string, number or boolean (stored as its String() text, at most MAX_PROP_VALUE
 * characters) or null (dropped). The first problem is the reason. Text rules of stored fields (NUL,
 * lone surrogates) are the caller's: the import line's validation applies them to every field alike.
 */
export function readPropsObject(obj: unknown): PropsRead {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return { ok: false, reason: 'props must be an object' };
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length > MAX_PROPS) return { ok: false, reason: `props has more than ${MAX_PROPS} keys` };
  const props: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_PROP_KEY) return { ok: false, reason: `a props key must be 1 to ${MAX_PROP_KEY} characters` };
    if (value === null || value === undefined) continue;
    if (typeof value === 'object') return { ok: false, reason: `props.${key} must be a string, a number or a boolean` };
    const text = String(value);
    if (text.length > MAX_PROP_VALUE) return { ok: false, reason: `props.${key} is longer than ${MAX_PROP_VALUE} characters` };
    setProp(props, key, text);
  }
  return { ok: true, props };
}

/** props[key] = value, for a key `__proto__` too (an assignment would set the object's prototype instead). */
export function setProp(props: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') Object.defineProperty(props, key, { value, enumerable: true, writable: true, configurable: true });
  else props[key] = value;
}

/**
 * UTF-16 units ordered as the code points (hence the UTF-8 bytes) they encode: a surrogate (a code
 * point above U+FFFF) sorts after U+E000..U+FFFF, not before. Callers have refused lone surrogates.
 */
const codePointRank = (unit: number) => (unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800);

/** a < b in UTF-8 byte order: negative, 0 or positive, as Array.prototype.sort wants. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** `props` as PropArrays (keys in UTF-8 byte order, so every store and engine sorts them alike). */
export function propArrays(props: Readonly<Record<string, string>>): PropArrays {
  const prop_keys = Object.keys(props).sort(compareUtf8);
  return { prop_keys, prop_values: prop_keys.map((k) => props[k]) };
}
