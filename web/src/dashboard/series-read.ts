// The timeseries read of a tile or the chart, cached so both share one answer.
import { cachedRead } from '../api/read-cache.js';
import type { ReadQuery } from '../api/read.js';
import type { Reader } from '../api/reader.js';

export function readSeries(reader: Reader, query: ReadQuery<'/v1/metrics/timeseries'>) {
  return cachedRead(reader, '/v1/metrics/timeseries', query);
}
