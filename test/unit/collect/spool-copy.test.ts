// The spools in a backup (spool-copy.ts): of a spool in use, the records past the loader's checkpoint
// are copied at the positions they had, across segments, without the preallocated zeros or a record the
// writer has not finished; read from the checkpoint, the copy gives exactly those records, once each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copySpools, countSpoolRecords } from '../../../src/ingest/collect/spool-copy.js';
import { openOwnSpool } from '../../../src/ingest/collect/spool-root.js';
import { Spool } from '../../../src/ingest/collect/spool.js';
import { offsetOf, segmentFile, segmentOf } from '../../../src/ingest/collect/spool-format.js';

const payload = (i: number) => `["e${i}","été ✓ ${'x'.repeat(i % 7)}"]`;

async function readAll(spool: Spool, from: number): Promise<string[]> {
  const out: string[] = [];
  for (let at = from; ; ) {
    const { records, next } = await spool.read(at, 1000);
    out.push(...records.map((r) => r.payload));
    if (next === at) return out;
    at = next;
  }
}

test('a spool in use is copied from its checkpoint on, at the same positions: the copy reads back exactly the records past it', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-spool-copy-'));
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-spool-copy-dest-'));
  try {
    const { spool, rootLock } = await openOwnSpool(path.join(root, 'spool'), { shared: false, spool: { segmentBytes: 300 } });
    let copied: Awaited<ReturnType<typeof copySpools>>;
    let checkpoint: number;
    try {
      const ends: number[] = [];
      for (let i = 0; i < 40; i++) ends.push(await spool.append(i % 5 ? 'E' : 'G', payload(i)));
      checkpoint = ends[16];
      assert.ok(segmentOf(checkpoint) > 1 && segmentOf(ends[39]) > segmentOf(checkpoint) + 1, 'the records span several segments');
      // a record the writer has not finished, past the last acknowledged one (what a copy taken mid-write sees)
      const active = path.join(spool.dir, segmentFile(segmentOf(spool.durableEnd)));
      const fd = fs.openSync(active, 'r+');
      fs.writeSync(fd, '1234abcdE["torn', offsetOf(spool.durableEnd));
      fs.closeSync(fd);
      let files = 0;
      copied = await copySpools(
        path.join(root, 'spool'),
        path.join(dest, 'spool'),
        async (id) => (id === spool.id ? checkpoint : null),
        () => files++,
      );
      assert.deepEqual(copied, { [spool.id]: { checkpoint, records: 23 } });
      const copy = path.join(dest, 'spool', spool.id);
      const segments = fs.readdirSync(copy).filter((f) => f.endsWith('.log'));
      assert.equal(files, segments.length + 1, 'a call per file written (the segments and the ID)');
      assert.equal(
        Math.min(...segments.map((f) => Number(f.slice(0, 12)))),
        segmentOf(checkpoint),
        'no segment wholly before the checkpoint',
      );
      const last = path.join(copy, segmentFile(segmentOf(spool.durableEnd)));
      assert.equal(
        fs.statSync(last).size,
        offsetOf(spool.durableEnd),
        'the active segment up to its last whole record: no zeros, no torn record',
      );
      assert.equal(fs.readFileSync(path.join(copy, 'ID'), 'utf8').trim(), spool.id);
    } finally {
      await spool.close();
      rootLock?.release();
    }
    assert.deepEqual(await countSpoolRecords(path.join(dest, 'spool'), { [spool.id]: checkpoint }), { [spool.id]: 23 });
    const copy = await Spool.open(path.join(dest, 'spool', spool.id), { readOnly: true });
    try {
      assert.deepEqual(
        await readAll(copy, checkpoint),
        Array.from({ length: 23 }, (_, i) => payload(17 + i)),
      );
    } finally {
      await copy.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dest, { recursive: true, force: true });
  }
});
