// The node:dns resolver against a DNS server of the test's own on 127.0.0.1: TXT records as sent
// (chunks, several records), "no record" answers, and resolvers that never answer, which end within
// the bounded timeout. Also FOOTFALL_DNS_SERVERS as the configuration reads it. The deadline is a timer
// of ours, driven here on fake time (node:test's mock timers); c-ares keeps its own real time.
import { test, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import { NodeDnsTxtResolver, DNS_DEADLINE_MS, DNS_TIMEOUT_MS, DNS_TRIES } from '../../src/dns/node-dns-txt-resolver.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { openDnsTxtResolver } from '../../src/container.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { until } from '../helpers/until.js';

let dns: TestDnsServer;
before(async () => {
  dns = await startDnsServer({
    '_footfall.chunked.com': [['footfall-verification=', 'abc'], ['v=spf1 -all']],
    '_footfall.empty.com': [],
    '_footfall.broken.com': 'servfail',
    '_footfall.silent.com': 'drop',
  });
});
after(() => dns.close());

test('TXT records come back as sent, each a list of chunks, several per name', async () => {
  const r = new NodeDnsTxtResolver({ servers: [dns.address] });
  assert.deepEqual(await r.resolveTxt('_footfall.chunked.com'), {
    answered: true,
    records: [['footfall-verification=', 'abc'], ['v=spf1 -all']],
  });
  assert.equal(dns.queries.at(-1), '_footfall.chunked.com');
});

test('NXDOMAIN and a name without TXT records are answers: no records', async () => {
  const r = new NodeDnsTxtResolver({ servers: [dns.address] });
  assert.deepEqual(await r.resolveTxt('_footfall.nowhere.com'), { answered: true, records: [] });
  assert.deepEqual(await r.resolveTxt('_footfall.empty.com'), { answered: true, records: [] });
});

test('SERVFAIL and a refused port are no answer', async () => {
  const r = new NodeDnsTxtResolver({ servers: [dns.address] });
  assert.deepEqual(await r.resolveTxt('_footfall.broken.com'), { answered: false, reason: 'ESERVFAIL' });
  const closed = await startDnsServer();
  const port = closed.address;
  await closed.close();
  assert.deepEqual(await new NodeDnsTxtResolver({ servers: [port] }).resolveTxt('_footfall.chunked.com'), {
    answered: false,
    reason: 'ECONNREFUSED',
  });
});

/** A lookup's outcome, and whether it has settled within `turns` turns of the event loop. */
function watched(lookup: Promise<unknown>): { settled(turns: number): Promise<boolean>; result: Promise<unknown> } {
  let done = false;
  const result = lookup.finally(() => (done = true));
  return {
    result,
    async settled(turns: number) {
      for (let i = 0; i < turns && !done; i++) await new Promise((r) => setImmediate(r));
      return done;
    },
  };
}

test('a resolver that drops the query is asked again (c-ares: 500 ms, then 1 s), then given up on: no answer', async () => {
  // the deadline on fake time, so only c-ares ends this lookup
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    assert.deepEqual([DNS_TIMEOUT_MS, DNS_TRIES], [500, 2], 'as docs/decisions/site-ownership.md says');
    const asked = dns.queries.length;
    const silent = await new NodeDnsTxtResolver({ servers: [dns.address] }).resolveTxt('_footfall.silent.com');
    assert.deepEqual(silent, { answered: false, reason: 'ETIMEOUT' });
    assert.deepEqual(dns.queries.slice(asked), ['_footfall.silent.com', '_footfall.silent.com'], 'asked twice before giving up');
  } finally {
    mock.timers.reset();
  }
});

test('the deadline ends a lookup whatever the resolvers do, at exactly its time', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    // Four silent resolvers, each waited on for 10 s twice: c-ares alone would take a minute or more.
    const asked = dns.queries.length;
    const r = new NodeDnsTxtResolver({
      servers: [dns.address, dns.address, dns.address, dns.address],
      timeoutMs: 10_000,
      tries: 2,
      deadlineMs: 800,
    });
    const lookup = watched(r.resolveTxt('_footfall.silent.com'));
    await until(() => dns.queries.length > asked, 'the query reached the server');
    mock.timers.tick(799);
    assert.equal(await lookup.settled(20), false, 'still waiting 1 ms before the deadline');
    mock.timers.tick(1);
    assert.equal(await lookup.settled(10_000), true, 'ended at the deadline');
    assert.deepEqual(await lookup.result, { answered: false, reason: 'ECANCELLED' });

    // the default deadline: 2.5 s (docs/decisions/site-ownership.md)
    assert.equal(DNS_DEADLINE_MS, 2_500);
    const before = dns.queries.length;
    const byDefault = watched(new NodeDnsTxtResolver({ servers: [dns.address], timeoutMs: 10_000 }).resolveTxt('_footfall.silent.com'));
    await until(() => dns.queries.length > before, 'the query reached the server');
    mock.timers.tick(DNS_DEADLINE_MS - 1);
    assert.equal(await byDefault.settled(20), false, 'still waiting 1 ms before the default deadline');
    mock.timers.tick(1);
    assert.equal(await byDefault.settled(10_000), true, 'ended at the default deadline');
    assert.deepEqual(await byDefault.result, { answered: false, reason: 'ECANCELLED' });
  } finally {
    mock.timers.reset();
  }
});

test('FOOTFALL_DNS_SERVERS: ip or ip:port (v6 in brackets), comma-separated; the composition root uses them', async () => {
  const load = (v: string) => loadConfig({}, { FOOTFALL_DNS_SERVERS: v }).dnsServers;
  assert.equal(loadConfig({}, {}).dnsServers, undefined);
  assert.deepEqual(load(' 1.1.1.1, 127.0.0.1:5353 ,::1,[2001:db8::1]:53'), ['1.1.1.1', '127.0.0.1:5353', '::1', '[2001:db8::1]:53']);
  assert.deepEqual(loadConfig({ dnsServers: '9.9.9.9' }, { FOOTFALL_DNS_SERVERS: '1.1.1.1' }).dnsServers, ['9.9.9.9'], 'the flag wins');
  for (const bad of ['dns.example.com', '1.2.3.4:0', '1.2.3.4:70000', '1.2.3', '[1.2.3.4]:53', ' , ', '::1:53x'])
    assert.throws(
      () => load(bad),
      (err: unknown) => err instanceof ConfigError && /FOOTFALL_DNS_SERVERS/.test(err.message),
      bad,
    );
  const r = openDnsTxtResolver(loadConfig({}, { FOOTFALL_DNS_SERVERS: dns.address }));
  // and its lookups keep the default deadline: the timer each one sets
  const timers = mock.method(globalThis, 'setTimeout');
  try {
    assert.deepEqual(await r.resolveTxt('_footfall.empty.com'), { answered: true, records: [] });
    assert.deepEqual(
      timers.mock.calls.map((c) => c.arguments[1]),
      [DNS_DEADLINE_MS],
    );
  } finally {
    timers.mock.restore();
  }
});
