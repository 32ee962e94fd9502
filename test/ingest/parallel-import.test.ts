// The parallel importer (parse workers) must give exactly what the in-thread importer gives:
// the same summary, line numbers and errors, the same rows, and the same store afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { action, harness, NOW, pv } from './harness.js';
import { importLines, reidentify, type ImportSink } from '../../src/ingest/pipeline/import-lines.js';
import { importChunksParallel } from '../../src/ingest/pipeline/import-parallel.js';
import { readLineBatches, readLineChunks } from '../../src/ingest/pipeline/read-lines.js';
import { canonicalContent, IDENTITY_FIELDS } from '../../src/ingest/parse/identity.js';
import { decodeEventRow, type EventRow } from '../../src/ports/event-store.js';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** The input in pieces of `size` bytes, so lines and UTF-8 characters are cut across reads. */
function pieces(text: string, size: number): Readable {
  const buf = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
  return Readable.from(parts);
}

function capture(): ImportSink & { rows: EventRow[] } {
  const rows: EventRow[] = [];
  return {
    rows,
    append: async (r) => {
      rows.push(...r);
    },
    appendEncoded: async (text, count) => {
      const got = text
        .split('\n')
        .filter((l) => l !== '')
        .map(decodeEventRow);
      assert.equal(got.length, count);
      rows.push(...got);
    },
    commit: async () => ({ imported: rows.length, duplicates: 0, days: [] }),
    abort: async () => undefined,
  };
}

test('parse workers give the same summary, errors and rows as the in-thread importer', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const strict = await h.site({ profile: 'strict' });
    const t = await h.tenant(s, 'one');
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      const ts = `2025-03-05T10:${String(i % 60).padStart(2, '0')}:00Z`;
      lines.push(JSON.stringify(pv(s, ts, { visitor_key: undefined, ip: `198.51.100.${i % 7}`, user_agent: IPHONE, title: 'Café' })));
      if (i % 50 === 0) lines.push('{"ts": broken');
      if (i % 60 === 0) lines.push('   ');
      if (i % 70 === 0) lines.push(JSON.stringify(pv('site_nope', ts)));
      if (i % 80 === 0) lines.push(JSON.stringify(pv(s, ts, { tenant_id: t })) + '\r');
      if (i % 90 === 0) lines.push(JSON.stringify(pv(s, ts, { tenant_id: 'ten_nope' })));
      if (i % 25 === 0) lines.push(JSON.stringify(action(strict, ts, 'video.play')));
      if (i % 30 === 0) lines.push(JSON.stringify(pv(s, '2025-03-05T09:00:00Z'))); // identical copies
    }
    const text = lines.join('\n'); // the last line has no newline
    const common = { format: { kind: 'events' } as const, catalog: h.control.catalog, nowMs: NOW, chunkSize: 64, maxErrors: 5 };

    const inThread = capture();
    const a = await importLines(readLineBatches(pieces(text, 997)), { ...common, sink: inThread });
    const parallel = capture();
    const b = await importChunksParallel(readLineChunks(pieces(text, 997)), {
      ...common,
      sink: { ...parallel, appendEncoded: parallel.appendEncoded! },
      workers: 2,
    });

    assert.deepEqual(b, a);
    assert.ok(a.rejected > 5 && a.errors_truncated && a.skipped > 0, 'the input exercises rejects, the cap and skips');
    assert.deepEqual(parallel.rows, inThread.rows, 'same rows in the same order');

    const session = await h.store.beginImport({ reidentify });
    const stored = await importChunksParallel(readLineChunks(pieces(text, 4096)), {
      ...common,
      sink: session as Required<ImportSink>,
      workers: 2,
    });
    assert.equal(stored.imported, inThread.rows.length);
    assert.deepEqual(await h.query('SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM events'), [
      { n: String(inThread.rows.length), ids: String(inThread.rows.length) },
    ]);
  } finally {
    await h.close();
  }
});

test('a failing parse worker aborts the import and stores nothing', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const session = await h.store.beginImport({ reidentify });
    const text = JSON.stringify(pv(s, '2025-03-05T10:00:00Z')) + '\n';
    await assert.rejects(
      importChunksParallel(readLineChunks(pieces(text, 10)), {
        format: { kind: 'events' },
        // a catalog that fails when a worker asks for the site
        catalog: {
          ...h.control.catalog,
          getSite: async () => {
            throw new Error('catalog down');
          },
          getTenant: h.control.catalog.getTenant.bind(h.control.catalog),
          getOrCreateSecret: h.control.catalog.getOrCreateSecret.bind(h.control.catalog),
        },
        sink: session as Required<ImportSink>,
        nowMs: NOW,
        workers: 1,
      }),
      /catalog down/,
    );
    assert.deepEqual(await h.query('SELECT count(*) AS n FROM events'), [{ n: '0' }]);
  } finally {
    await h.close();
  }
});

test('the spelled-out canonical content equals the one over IDENTITY_FIELDS', () => {
  const base = {
    site_id: 's',
    ts_ms: 1,
    type: 'pageview',
    profile: 'extended',
    visitor_key: 'k',
    has_click_id: false,
    traffic_class: 'human',
    engagement_time_ms: 0,
  };
  const samples = [
    base,
    { ...base, tenant_id: 't', page_title: 'a "quoted" \u2028 title', channel: 'Direct', city: undefined },
    { ...base, form_action_path: '/f', family: 'forms' },
  ];
  for (const ev of samples) {
    const record = ev as Record<string, unknown>;
    assert.equal(canonicalContent(ev as never), JSON.stringify(IDENTITY_FIELDS.map((f) => record[f] ?? null)));
  }
});
