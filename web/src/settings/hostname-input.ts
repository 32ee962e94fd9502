// The hostnames a person types into the add-a-site form. People paste addresses from the browser's bar
// (https://www.example.com/pricing); the API takes hostnames only, so the form takes each address's
// hostname and shows it before saving rather than refusing what was meant plainly.
import { listField } from './kit.js';

export interface TypedHostname {
  /** as typed */
  from: string;
  /** what is sent: the hostname of an address, or the entry as typed (the API judges it) */
  hostname: string;
}

/** An entry's hostname: an address (a scheme, a path, a port) gives its host; anything else is kept. */
export function hostnameOf(entry: string): string {
  if (!/[/:?#]/.test(entry)) return entry;
  try {
    const host = new URL(entry.includes('://') ? entry : `https://${entry}`).hostname;
    return host || entry;
  } catch {
    return entry;
  }
}

export function hostnamesOf(typed: string): TypedHostname[] {
  return listField(typed).map((from) => ({ from, hostname: hostnameOf(from) }));
}
