// CSV downloads: the same read with Accept: text/csv (the API answers RFC 4180 CSV where the plan's
// exports.csv allows), saved through a blob link. A plain link cannot carry a bearer, and a cookie
// navigation asks for HTML, hence the fetch.
import { failureOf, fetchPatiently, queryString, type Failure, type ReadPath, type ReadQuery } from './read.js';
import { requestInit, type Reader } from './reader.js';

export async function downloadCsv<P extends ReadPath>(
  reader: Reader,
  path: P,
  query: ReadQuery<P>,
  filename: string,
): Promise<Failure | null> {
  // patiently, as every read: a click right after the page's burst of reads can meet a full window
  const res = await fetchPatiently(reader.base + path + queryString(query), requestInit(reader, 'text/csv'));
  if (!(res instanceof Response)) return res;
  if (res.status !== 200) return failureOf(res);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/csv')) {
    return { status: 200, code: 'CSV_UNAVAILABLE', message: 'This server does not offer CSV for this list yet.' };
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return null;
}
