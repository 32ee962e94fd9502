// The common report envelope (spec "Common report envelope"), serialized in two parts: the data
// (current, compare, range, availability), which the response cache keeps as UTF-8 bytes, and the meta
// of this one request (request id, units, usage, surface), appended to it. JSON.stringify throughout:
// on multi-MB bodies it beats a schema serializer. The body goes out as bytes: a string body is encoded
// on every write, and one holding any character past U+00FF (a page title, an ellipsis) costs several
// times the copy of its bytes (docs/decisions/hot-path-at-the-floor.md).
import type { Availability } from '../../domain/availability.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { MeteredMeta } from '../metering.js';
import type { Surface } from './surface.js';

export interface EnvelopeData<P> {
  current: P;
  compare: P | null;
  range: ResolvedRange['range'];
  availability: Availability;
}

export interface EnvelopeMeta extends MeteredMeta {
  request_id: string;
  surface: Surface;
}

/** Serialized data part, UTF-8: the envelope's JSON without its closing brace (meta follows). */
export interface SerializedData {
  buf: Buffer;
}

export function serializeEnvelopeData<P>(data: EnvelopeData<P>): SerializedData {
  // Member order is the spec's: current, compare, range, availability, then meta.
  const json = JSON.stringify({ current: data.current, compare: data.compare, range: data.range, availability: data.availability });
  return { buf: Buffer.from(json.slice(0, -1), 'utf8') };
}

const META_JOIN = ',"meta":';
const CLOSE = '}';

/** The envelope from the data part and its serialized meta (serializeMeta): one copy of the data's bytes. */
export function envelopeBody(data: SerializedData, metaJson: string): Buffer {
  const tail = Buffer.from(META_JOIN + metaJson + CLOSE, 'utf8');
  return Buffer.concat([data.buf, tail], data.buf.length + tail.length);
}

/**
 * JSON.stringify(meta), with the surface serialized once by the caller: the request path writes
 * the meta twice (the budget's upper bound, then the real one) and the surface is most of it.
 */
export function serializeMeta(meta: Omit<EnvelopeMeta, 'surface'>, surfaceJson: string): string {
  const u = meta.usage;
  return (
    `{"request_id":${JSON.stringify(meta.request_id)},"units_charged":${meta.units_charged},"billable_overage":${meta.billable_overage},` +
    `"usage":{"used_units":${u.used_units},"overage_units":${u.overage_units},"included_units":${u.included_units},"hard_cap_units":${u.hard_cap_units}},` +
    `"surface":${surfaceJson}}`
  );
}

/** Bytes of envelopeBody(data, metaJson), without building it. */
export function envelopeBytes(data: SerializedData, metaJson: string): number {
  return data.buf.length + META_JOIN.length + Buffer.byteLength(metaJson, 'utf8') + CLOSE.length;
}

/**
 * The largest meta this request can end with, serialized. The budget is checked before the units
 * are committed, when the final used_units is not known yet: used and overage can be at most the
 * hard cap, and `false` is the longer boolean, so the real meta is never longer than this one.
 */
export function metaUpperBound(input: {
  requestId: string;
  units: number;
  included: number;
  hardCap: number;
  surfaceJson: string;
}): string {
  return serializeMeta(
    {
      request_id: input.requestId,
      units_charged: input.units,
      billable_overage: false,
      usage: { used_units: input.hardCap, overage_units: input.hardCap, included_units: input.included, hard_cap_units: input.hardCap },
    },
    input.surfaceJson,
  );
}
