// CSV downloads: the panel's query API read with Accept: text/csv (the API answers RFC 4180 CSV where the plan's
// exports.csv allows), saved through a blob link. A plain link cannot carry a bearer, and a cookie
// navigation asks for HTML, hence the fetch.
import { failureOf, fetchPatiently, postInit, type Failure } from './read.js';
import type { Reader } from './reader.js';

/** The CSV an answer carries, saved under `filename`; the failure otherwise. */
async function saveCsv(res: Response | Failure, filename: string): Promise<Failure | null> {
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

/** A query API read as CSV (the same body, Accept: text/csv: dimensions then metrics, in the site's days). */
export async function downloadQueryCsv(reader: Reader, body: unknown, filename: string): Promise<Failure | null> {
  const res = await fetchPatiently(reader.base + '/api/v2/query', await postInit(reader, 'text/csv', body));
  return saveCsv(res, filename);
}
