// Import throughput: generates N NDJSON events (default 1,000,000) into a temp file, times
// `import events` end to end (the same runImport the CLI uses), reports events/s and peak RSS,
// then times each stage alone, in one thread, on a sample to show where the time goes (the import
// itself spreads those stages over parse workers, one per core; see docs/decisions.md (store)).
// Run alone: `npx tsx bench/import.ts [N]`; bench/run.ts calls benchImport().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../src/container.js';
import { validateEventLine } from '../src/ingest/parse/validate.js';
import { normalizeEvent } from '../src/ingest/parse/normalize.js';
import { eventIdentity } from '../src/ingest/parse/identity.js';
import { encodeEventRows, type EventRow } from '../src/ports/event-store.js';
import { generateBenchLines } from '../src/ingest/demo/traffic.js';

export interface ImportBenchResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  peakRssMb: number;
  imported: number;
  rejected: number;
  stagesUsPerEvent: Record<string, number>;
}

export async function benchImport(opts: { events?: number; log?: (s: string) => void } = {}): Promise<ImportBenchResult> {
  const n = opts.events ?? 1_000_000;
  const log = opts.log ?? ((s: string) => process.stderr.write(s + '\n'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-import-'));
  try {
    const control = await openControlPlane({ dataDir: dir });
    const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
    const site = await control.catalog.createSite({
      workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended',
    });
    const secret = await control.catalog.getOrCreateSecret('visitor-salt');
    await control.close();

    const file = path.join(dir, 'events.ndjson');
    const nowMs = Date.now();
    let t = performance.now();
    const fd = fs.openSync(file, 'w');
    for (const block of generateBenchLines({ siteId: site.id, events: n, endMs: nowMs - 3_600_000, seed: 7 })) {
      fs.writeSync(fd, block);
    }
    fs.closeSync(fd);
    const mb = fs.statSync(file).size / 1e6;
    log(`generated ${n} events (${mb.toFixed(0)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    t = performance.now();
    const summary = await runImport({ open: () => openImportStores({ dataDir: dir }), source: file, format: { kind: 'events' } });
    const seconds = (performance.now() - t) / 1000;
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    const eventsPerSecond = n / seconds;
    log(
      `import events: ${n} lines in ${seconds.toFixed(2)} s = ${Math.round(eventsPerSecond)} events/s; ` +
        `imported ${summary.imported}, rejected ${summary.rejected}; peak RSS ${peakRssMb.toFixed(0)} MB`,
    );

    const stagesUsPerEvent = await stageTimes(file, site, secret, Math.min(n, 100_000), nowMs);
    log(`per event (µs): ${Object.entries(stagesUsPerEvent).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
    return { events: n, seconds, eventsPerSecond, peakRssMb, imported: summary.imported, rejected: summary.rejected, stagesUsPerEvent };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Each JS stage alone over the first `sample` lines: where a second of import goes. */
async function stageTimes(
  file: string,
  site: { id: string; hostnames: string[]; collectionProfile: 'strict' | 'extended'; profileEffectiveAt: string | null },
  secret: string,
  sample: number,
  nowMs: number,
): Promise<Record<string, number>> {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n', sample);
  const time = <T>(fn: () => T): [T, number] => {
    const t = performance.now();
    const r = fn();
    return [r, ((performance.now() - t) * 1000) / lines.length];
  };
  const [objs, parse] = time(() => lines.map((l) => JSON.parse(l)));
  const [raws, validate] = time(() => objs.map((o) => {
    const v = validateEventLine(o, { nowMs });
    if (!v.ok) throw new Error(v.reason);
    return v.event;
  }));
  const [evs, normalize] = time(() => raws.map((r) => normalizeEvent(r, site, secret)!));
  const [rows, identity] = time(() => evs.map((e) => ({ ...e, event_id: eventIdentity(e, 1) }) as EventRow));
  const [, encode] = time(() => encodeEventRows(rows));
  return { parse, validate, normalize, identity, encode };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 1_000_000);
  const r = await benchImport({ events: n });
  process.stdout.write(JSON.stringify(r) + '\n');
}
