// A panel's read of the query API: its body (query-bodies.ts) through the page's reader, kept and batched
// with the page's other reads (read-cache.ts). null: nothing to ask yet.
import { cachedPost, postKey } from '../api/read-cache.js';
import type { Reader } from '../api/reader.js';
import { useRead } from '../ui/use-read.js';
import type { QueryAnswer, QueryBody } from './query-bodies.js';

export function useQuery(reader: Reader, body: QueryBody | null) {
  return useRead(body ? postKey('/api/v2/query', body) : null, () => cachedPost<QueryAnswer>(reader, '/api/v2/query', body!));
}
