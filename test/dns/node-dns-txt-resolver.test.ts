// The node:dns resolver against a DNS server of the test's own on 127.0.0.1: TXT records as sent
// (chunks, several records), "no record" answers, and resolvers that never answer, which end within
// the bounded timeout. Also FOOTFALL_DNS_SERVERS as the configuration reads it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NodeDnsTxtResolver, DNS_DEADLINE_MS } from '../../src/dns/node-dns-txt-resolver.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { openDnsTxtResolver } from '../../src/container.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

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
  assert.deepEqual(await r.resolveTxt('_footfall.chunked.com'), { answered: true, records: [['footfall-verification=', 'abc'], ['v=spf1 -all']] });
  assert.equal(dns.queries.at(-1), '_footfall.chunked.com');
});

test('NXDOMAIN and a name without TXT records are answers: no records', async () => {
  const r = new NodeDnsTxtResolver({ servers: [dns.address] });
  assert.deepEqual(await r.resolveTxt('_footfall.nowhere.com'), { answered: true, records: [] });
  assert.deepEqual(await r.resolveTxt('_footfall.empty.com'), { answered: true, records: [] });
});

test('SERVFAIL, a refused port and a resolver that drops the query are no answer, within the bound', async () => {
  const r = new NodeDnsTxtResolver({ servers: [dns.address] });
  assert.deepEqual(await r.resolveTxt('_footfall.broken.com'), { answered: false, reason: 'ESERVFAIL' });
  const closed = await startDnsServer();
  const port = closed.address;
  await closed.close();
  assert.deepEqual(await new NodeDnsTxtResolver({ servers: [port] }).resolveTxt('_footfall.chunked.com'), { answered: false, reason: 'ECONNREFUSED' });

  const started = Date.now();
  const silent = await r.resolveTxt('_footfall.silent.com');
  const took = Date.now() - started;
  assert.equal(silent.answered, false);
  assert.ok(took < DNS_DEADLINE_MS + 500, `a dropped query ends within the bound, took ${took} ms`);
  assert.ok(dns.queries.filter((q) => q === '_footfall.silent.com').length >= 2, 'asked again before giving up');
});

test('the deadline ends a lookup whatever the resolvers do', async () => {
  // Four silent resolvers, each tried twice, would take far longer than the deadline.
  const r = new NodeDnsTxtResolver({ servers: [dns.address, dns.address, dns.address, dns.address], timeoutMs: 400, tries: 3, deadlineMs: 800 });
  const started = Date.now();
  assert.deepEqual(await r.resolveTxt('_footfall.silent.com'), { answered: false, reason: 'ECANCELLED' });
  assert.ok(Date.now() - started < 1_500);
});

test('FOOTFALL_DNS_SERVERS: ip or ip:port (v6 in brackets), comma-separated; the composition root uses them', async () => {
  const load = (v: string) => loadConfig({}, { FOOTFALL_DNS_SERVERS: v }).dnsServers;
  assert.equal(loadConfig({}, {}).dnsServers, undefined);
  assert.deepEqual(load(' 1.1.1.1, 127.0.0.1:5353 ,::1,[2001:db8::1]:53'), ['1.1.1.1', '127.0.0.1:5353', '::1', '[2001:db8::1]:53']);
  assert.deepEqual(loadConfig({ dnsServers: '9.9.9.9' }, { FOOTFALL_DNS_SERVERS: '1.1.1.1' }).dnsServers, ['9.9.9.9'], 'the flag wins');
  for (const bad of ['dns.example.com', '1.2.3.4:0', '1.2.3.4:70000', '1.2.3', '[1.2.3.4]:53', ' , ', '::1:53x'])
    assert.throws(() => load(bad), (err: unknown) => err instanceof ConfigError && /FOOTFALL_DNS_SERVERS/.test(err.message), bad);
  const r = openDnsTxtResolver(loadConfig({}, { FOOTFALL_DNS_SERVERS: dns.address }));
  assert.deepEqual(await r.resolveTxt('_footfall.empty.com'), { answered: true, records: [] });
});
