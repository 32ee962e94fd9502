// "CSV" beside a list or the chart, where the plan exports CSV: the same read as text/csv, saved as a file.
import { useState } from 'preact/hooks';
import type { Failure } from '../api/read.js';

export function CsvButton({ what, enabled, download }: { what: string; enabled: boolean; download: () => Promise<Failure | null> }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  if (!enabled) return null;
  const run = async () => {
    setBusy(true);
    setFailure(await download());
    setBusy(false);
  };
  return (
    <span class="csv">
      <button type="button" class="quiet-button" onClick={run} disabled={busy} aria-label={`Download ${what} as CSV`}>
        CSV
      </button>
      {failure ? (
        <span class="csv-error" role="alert">
          {failure.message}
        </span>
      ) : null}
    </span>
  );
}
