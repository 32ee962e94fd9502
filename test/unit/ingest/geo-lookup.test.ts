import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { GeoDatabaseError, loadGeoSource, MmdbGeoLookup, openGeoLookup } from '../../../src/ingest/parse/mmdb-geo-lookup.js';
import { writeSampleDatabases } from './geo-samples.js';

const db = writeSampleDatabases();
after(() => fs.rmSync(db.dir, { recursive: true, force: true }));

// The documented locations of the samples (geo-samples.ts), as footfall stores them.
const EXPECTED: [string, { country: string; region: string | null; city: string | null }][] = [
  ['81.2.69.142', { country: 'GB', region: 'GB-ENG', city: 'London' }],
  ['81.2.69.143', { country: 'GB', region: 'GB-ENG', city: 'London' }],
  ['2.125.160.217', { country: 'GB', region: 'GB-ENG', city: 'Boxford' }],
  ['89.160.20.112', { country: 'SE', region: 'SE-E', city: 'Linköping' }],
  ['216.160.83.60', { country: 'US', region: 'US-WA', city: 'Milton' }],
  // where the person is, not where the network is registered (RO)
  ['67.43.156.1', { country: 'BT', region: null, city: null }],
  ['2001:480::1', { country: 'US', region: 'US-CA', city: 'San Diego' }],
  ['2001:218:1234::5', { country: 'JP', region: null, city: null }],
];

test('MaxMind City layout: country, ISO 3166-2 region and city of known IPv4 and IPv6 addresses', () => {
  const geo = openGeoLookup(db.maxmind)!;
  for (const [ip, want] of EXPECTED) assert.deepEqual(geo.lookup(ip), want, ip);
  // an IPv4 address written as IPv6 (dual-stack sockets log these)
  assert.deepEqual(geo.lookup('::ffff:81.2.69.142'), { country: 'GB', region: 'GB-ENG', city: 'London' });
  // the sample's CN subdivision "22" is not a current ISO 3166-2 code (China's are letters since 2017)
  assert.deepEqual(geo.lookup('175.16.199.1'), { country: 'CN', region: null, city: 'Changchun' });
});

test('ip-location-db layout (one IPv4 and one IPv6 file, regions by name): the same answers', () => {
  const geo = openGeoLookup(`${db.ipv4},${db.ipv6}`)!;
  for (const [ip, want] of EXPECTED) assert.deepEqual(geo.lookup(ip), want, ip);
  // by name, the sample's "Jilin Sheng" is CN-JL, ISO 3166-2's own name for it
  assert.deepEqual(geo.lookup('175.16.199.1'), { country: 'CN', region: 'CN-JL', city: 'Changchun' });
  // with the IPv4 file alone, IPv6 addresses are not placed
  assert.equal(openGeoLookup(db.ipv4)!.lookup('2001:480::1'), null);
});

test('private, reserved, unknown and malformed addresses give nothing', () => {
  for (const geo of [openGeoLookup(db.maxmind)!, openGeoLookup(`${db.ipv4},${db.ipv6}`)!]) {
    for (const ip of [
      '10.0.0.1',
      '192.168.1.1',
      '172.16.5.4',
      '127.0.0.1',
      '0.0.0.0',
      '100.64.0.1',
      '81.2.69.1',
      '::1',
      'fe80::1',
      'fc00::1',
      '2001:db8::1',
      '',
      '-',
      'example.com',
      '999.1.1.1',
      '1.2.3',
    ]) {
      assert.equal(geo.lookup(ip), null, ip);
    }
  }
});

test('the bundled DB-IP Lite database loads both files and places public addresses only', () => {
  const geo = openGeoLookup(undefined)!;
  assert.equal(geo.source.files.length, 2);
  assert.match(geo.source.label, /dbip-city-mmdb/);
  // Google's public resolver is in the United States in every geolocation database
  assert.equal(geo.lookup('8.8.8.8')?.country, 'US');
  assert.equal(geo.lookup('2001:4860:4860::8888') === null, false);
  for (const ip of ['10.0.0.1', '192.168.1.1', '127.0.0.1', '::1', 'fe80::1']) assert.equal(geo.lookup(ip), null, ip);
  for (const ip of ['8.8.8.8', '81.2.69.142', '89.160.20.112', '2001:218::1']) {
    const loc = geo.lookup(ip)!;
    assert.match(loc.country, /^[A-Z]{2}$/, ip);
    if (loc.region !== null) assert.ok(loc.region.startsWith(`${loc.country}-`), `${ip}: ${loc.region}`);
  }
});

test('a database is loaded once per process and shared, not copied, with workers', () => {
  const a = loadGeoSource([db.maxmind]);
  assert.equal(loadGeoSource([db.maxmind]), a);
  assert.ok(a.files[0].bytes instanceof SharedArrayBuffer);
  // a lookup built from the structured clone a Worker receives answers the same
  const clone = structuredClone(a);
  assert.deepEqual(new MmdbGeoLookup(clone).lookup('81.2.69.142'), { country: 'GB', region: 'GB-ENG', city: 'London' });
  assert.equal(openGeoLookup('off'), null);
});

test('a missing file, a directory, a file that is not an MMDB or a database without locations is a clear error', () => {
  const cases: [string, RegExp][] = [
    [`${db.dir}/nope.mmdb`, /FOOTFALL_GEOIP_DB: .*nope\.mmdb does not exist/],
    [db.dir, /is not a file/],
    [db.notMmdb, /not\.mmdb is not a MaxMind DB \(MMDB\) file/],
    [db.asn, /ASN-Test\.mmdb is a GeoLite2-ASN database; geolocation needs a City or Country database/],
    [`${db.ipv4},${db.dir}/missing-ipv6.mmdb`, /missing-ipv6\.mmdb does not exist/],
  ];
  for (const [setting, message] of cases) {
    assert.throws(
      () => openGeoLookup(setting),
      (err: unknown) => err instanceof GeoDatabaseError && message.test(err.message) && err.exitCode === 2,
      setting,
    );
  }
});
