// The normalized action key (the actions report's action_key and its filter): one string per
// distinct action, readable and reversible. Form: `family/action_name`, then `;attr=value` for each
// attribute the action carries, in ACTION_ATTRIBUTES order; names and values percent-encoded.
import { ACTION_FAMILIES, type ActionFamily } from './events.js';
import { invalidParams } from './errors.js';

export const ACTION_ATTRIBUTES = ['event_name', 'action_id', 'action_target_host', 'form_id', 'form_action_path'] as const;
export type ActionAttribute = (typeof ACTION_ATTRIBUTES)[number];

export interface ActionIdentity {
  family: ActionFamily;
  action_name: string;
  event_name: string | null;
  action_id: string | null;
  action_target_host: string | null;
  form_id: string | null;
  form_action_path: string | null;
}

export function formatActionKey(a: ActionIdentity): string {
  let key = `${a.family}/${encodeURIComponent(a.action_name)}`;
  for (const attr of ACTION_ATTRIBUTES) {
    const v = a[attr];
    if (v !== null) key += `;${attr}=${encodeURIComponent(v)}`;
  }
  return key;
}

/** Parses a key (422 INVALID_PARAMS naming action_key when it is not one formatActionKey writes). */
export function parseActionKey(key: string): ActionIdentity {
  const bad = (why: string) => invalidParams(`action_key is not a normalized action key: ${why}`, { parameter: 'action_key' });
  const [head, ...attrs] = key.split(';');
  const slash = head.indexOf('/');
  if (slash < 0) throw bad('expected family/action_name');
  const family = head.slice(0, slash);
  if (!(ACTION_FAMILIES as readonly string[]).includes(family)) throw bad(`unknown family ${family}`);
  const out: ActionIdentity = {
    family: family as ActionFamily,
    action_name: decode(head.slice(slash + 1), bad),
    event_name: null,
    action_id: null,
    action_target_host: null,
    form_id: null,
    form_action_path: null,
  };
  if (out.action_name === '') throw bad('empty action_name');
  let last = -1;
  for (const part of attrs) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const idx = (ACTION_ATTRIBUTES as readonly string[]).indexOf(name);
    if (eq < 0 || idx < 0) throw bad(`unknown attribute ${name}`);
    if (idx <= last) throw bad('attributes out of order or repeated');
    last = idx;
    out[name as ActionAttribute] = decode(part.slice(eq + 1), bad);
  }
  return out;
}

function decode(s: string, bad: (why: string) => Error): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw bad('malformed percent-encoding');
  }
}
