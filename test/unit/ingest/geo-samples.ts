// Known addresses for geolocation tests: the documented sample entries MaxMind publishes for
// testing readers of its City databases (source-data/GeoLite2-City-Test.json of the MaxMind-DB
// repository), written into test databases by mmdb-fixture.ts in both layouts footfall reads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeMmdb, type MmdbEntry } from './mmdb-fixture.js';

interface Sample {
  network: string;
  country: string;
  /** the sample's first subdivision: its iso_code and English name */
  subdivision?: [string, string];
  city?: string;
  /** where the network is registered (not where the person is) */
  registered: string;
}

export const SAMPLES: Sample[] = [
  { network: '81.2.69.142/31', country: 'GB', subdivision: ['ENG', 'England'], city: 'London', registered: 'US' },
  { network: '2.125.160.216/29', country: 'GB', subdivision: ['ENG', 'England'], city: 'Boxford', registered: 'FR' },
  { network: '89.160.20.112/28', country: 'SE', subdivision: ['E', 'Östergötland County'], city: 'Linköping', registered: 'DE' },
  { network: '216.160.83.56/29', country: 'US', subdivision: ['WA', 'Washington'], city: 'Milton', registered: 'GB' },
  { network: '175.16.199.0/24', country: 'CN', subdivision: ['22', 'Jilin Sheng'], city: 'Changchun', registered: 'CN' },
  { network: '67.43.156.0/24', country: 'BT', registered: 'RO' },
  { network: '2001:480::/43', country: 'US', subdivision: ['CA', 'California'], city: 'San Diego', registered: 'US' },
  { network: '2001:218::/32', country: 'JP', registered: 'JP' },
];

/** MaxMind's City layout, as in GeoIP2/GeoLite2 City: one IPv6 database holding IPv4 too. */
export function maxmindEntries(): MmdbEntry[] {
  return SAMPLES.map((s) => ({
    network: s.network,
    record: {
      country: { iso_code: s.country, names: { en: s.country } },
      registered_country: { iso_code: s.registered, names: { en: s.registered } },
      ...(s.subdivision ? { subdivisions: [{ iso_code: s.subdivision[0], names: { en: s.subdivision[1] } }] } : {}),
      ...(s.city ? { city: { names: { en: s.city } } } : {}),
      location: { latitude: 0.5, longitude: 0.5, accuracy_radius: 100 },
    },
  }));
}

/** ip-location-db's layout (country_code, state1, state2, city, ...), IPv4 or IPv6 networks only. */
export function ipLocationDbEntries(family: 4 | 6): MmdbEntry[] {
  return SAMPLES.filter((s) => s.network.includes(':') === (family === 6)).map((s) => ({
    network: s.network,
    record: {
      country_code: s.country,
      state1: s.subdivision?.[1] ?? '',
      state2: '',
      city: s.city ?? '',
      postcode: '',
      latitude: 0.5,
      longitude: 0.5,
      timezone: '',
    },
  }));
}

/** Writes the test databases into a fresh directory. */
export function writeSampleDatabases(): { dir: string; maxmind: string; ipv4: string; ipv6: string; asn: string; notMmdb: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-geo-'));
  const file = (name: string, bytes: Buffer | string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, bytes);
    return p;
  };
  return {
    dir,
    maxmind: file('City-Test.mmdb', writeMmdb(maxmindEntries(), { ipVersion: 6, databaseType: 'GeoLite2-City' })),
    ipv4: file('city-ipv4.mmdb', writeMmdb(ipLocationDbEntries(4), { ipVersion: 4, databaseType: 'city ipv4' })),
    ipv6: file('city-ipv6.mmdb', writeMmdb(ipLocationDbEntries(6), { ipVersion: 6, databaseType: 'city ipv6' })),
    asn: file(
      'ASN-Test.mmdb',
      writeMmdb([{ network: '1.0.0.0/24', record: { autonomous_system_number: 15169 } }], { ipVersion: 6, databaseType: 'GeoLite2-ASN' }),
    ),
    notMmdb: file('not.mmdb', 'this is a text file, not a MaxMind database\n'),
  };
}
