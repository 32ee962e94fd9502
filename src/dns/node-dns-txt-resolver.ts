// DnsTxtResolver over node:dns (c-ares): the configured resolvers (FOOTFALL_DNS_SERVERS) or the
// system's, each lookup bounded in time (docs/decisions/site-ownership.md "DNS lookups of a proof").
import { Resolver } from 'node:dns/promises';
import type { DnsTxtResolver, TxtLookup } from '../ports/dns-txt-resolver.js';

/** Wait for one reply before asking again (c-ares doubles it on each further try). */
export const DNS_TIMEOUT_MS = 500;
/** Tries per resolver: 500 ms, then 1 s. */
export const DNS_TRIES = 2;
/** Whatever the resolvers do, a lookup ends by then (several slow resolvers add up). */
export const DNS_DEADLINE_MS = 2_500;

/** Codes meaning a resolver answered that the name or its TXT records do not exist. */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

export interface NodeDnsOptions {
  /** `ip` or `ip:port` (`[v6]:port`); none = the system's resolvers */
  servers?: readonly string[];
  timeoutMs?: number;
  tries?: number;
  deadlineMs?: number;
}

export class NodeDnsTxtResolver implements DnsTxtResolver {
  constructor(private readonly opts: NodeDnsOptions = {}) {}

  async resolveTxt(name: string): Promise<TxtLookup> {
    // A resolver per lookup: cancel() at the deadline ends this lookup and no other.
    const resolver = new Resolver({ timeout: this.opts.timeoutMs ?? DNS_TIMEOUT_MS, tries: this.opts.tries ?? DNS_TRIES });
    if (this.opts.servers?.length) resolver.setServers([...this.opts.servers]);
    const deadline = setTimeout(() => resolver.cancel(), this.opts.deadlineMs ?? DNS_DEADLINE_MS);
    try {
      return { answered: true, records: await resolver.resolveTxt(name) };
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? 'EUNKNOWN');
      if (NO_RECORD.has(code)) return { answered: true, records: [] };
      // ETIMEOUT, ECONNREFUSED, ESERVFAIL, EREFUSED, ECANCELLED (the deadline), …: nobody said yes or no.
      return { answered: false, reason: code };
    } finally {
      clearTimeout(deadline);
    }
  }
}
