// The timeseries read of a tile or the chart, cached so both share one answer.
import { cachedRead } from '../api/read-cache.js';
import type { ReadQuery } from '../api/read.js';
import type { Reader } from '../api/reader.js';
import type { SeriesQuery } from './query.js';

export function readSeries(reader: Reader, query: SeriesQuery) {
  // The generated client lists the route's metrics as served when it was generated; the tiles' three
  // newer metrics are sent as they are, and a server without them answers 422 in words.
  return cachedRead(reader, '/v1/metrics/timeseries', query as ReadQuery<'/v1/metrics/timeseries'>);
}
