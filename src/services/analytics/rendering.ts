// How serveAnalytics writes the data of an answer: the common report envelope (JSON, the default), or
// the payload as CSV on the metrics routes (docs/product.md §5). Either way the bytes are what the 5 MiB
// budget measures and what the response cache keeps.
import { envelopeBody, envelopeBytes, serializeEnvelopeData, type EnvelopeData, type SerializedData } from './report-envelope.js';

export interface Rendering<P> {
  /** set apart from the envelope's in the response cache (null: the envelope itself) */
  cacheName: string | null;
  /** the data part, before the meta of the request is known */
  serialize(data: EnvelopeData<P>): SerializedData;
  /** bytes of the whole body with this meta (the budget passes its upper bound) */
  bytes(data: SerializedData, metaJson: string): number;
  /** the whole body, UTF-8 */
  body(data: SerializedData, metaJson: string): Buffer;
}

/** The common report envelope: data, then this request's meta. */
export const envelopeRendering: Rendering<unknown> = {
  cacheName: null,
  serialize: serializeEnvelopeData,
  bytes: envelopeBytes,
  body: envelopeBody,
};

/** A CSV of the payloads; the meta (units, usage) is not part of it. */
export function csvRendering<P>(table: (data: { current: P; compare: P | null }) => string): Rendering<P> {
  return {
    cacheName: 'csv',
    serialize: (data) => ({ buf: Buffer.from(table(data), 'utf8') }),
    bytes: (data) => data.buf.length,
    body: (data) => data.buf,
  };
}
