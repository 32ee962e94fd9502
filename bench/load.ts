// A load run that cannot flatter: every answer must be a 2xx. A 429, a 401 or a 500 is answered
// faster than the work it stands for, so a run holding any (or a connection error) stops its bench
// instead of counting them as throughput. Not a bench itself (no `run`).
import autocannon from 'autocannon';

export async function loadAllOk(label: string, opts: autocannon.Options): Promise<autocannon.Result> {
  const r = await autocannon(opts);
  if (r.non2xx + r.errors > 0)
    throw new Error(
      `${label}: ${r.non2xx} non-2xx answers and ${r.errors} connection errors among ${r.requests.total} requests (${opts.url}); refusals are not throughput`,
    );
  return r;
}
