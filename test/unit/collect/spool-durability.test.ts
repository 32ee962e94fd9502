// "A 202 means the event is on disk": every acknowledged append, and every 202 of POST /api/event,
// must follow the sync that makes its bytes durable. A process killed by kill -9 cannot show it (the
// kernel keeps the pages it wrote), so these tests watch the file calls themselves (the open flags,
// the writes and the syncs: fixtures/durability-probe.ts) and ask, at the instant of each
// acknowledgement, what a power cut would leave on disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Spool } from '../../../src/ingest/collect/spool.js';
import {
  decodeRecords,
  encodeRecord,
  offsetOf,
  position,
  segmentFile,
  segmentOf,
  type RecordKind,
} from '../../../src/ingest/collect/spool-format.js';
import { probeDurability } from './fixtures/durability-probe.js';
import { collectHarness, CHROME, pageview } from '../../http/helpers/collect.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-durable-'));
const turn = () => new Promise((r) => setImmediate(r));

test('every append resolves only once its record is durable: group commit, writes side by side, segments rotating, a restart', async () => {
  const dir = tmp();
  const probe = await probeDurability(dir);
  const late: string[] = [];
  let checked = 0;
  /** at the instant `append` resolves: is the record, byte for byte, what a power cut would leave at its place? */
  const append = (spool: Spool, kind: RecordKind, payload: string) =>
    spool.append(kind, payload).then((end) => {
      const line = Buffer.from(encodeRecord(kind, payload));
      const file = path.join(dir, segmentFile(segmentOf(end)));
      const disk = probe.durable(file);
      const onDisk = disk.subarray(offsetOf(end) - line.length, offsetOf(end));
      if (!onDisk.equals(line))
        late.push(
          `${kind}${payload} (segment ${segmentOf(end)}, ending at ${offsetOf(end)}): durable bytes ${JSON.stringify(onDisk.toString())}`,
        );
      // and reading the segment after a crash reaches it: no torn or missing bytes before it
      else if (
        !decodeRecords(disk.subarray(0, offsetOf(end)).toString('utf8'), position(segmentOf(end), 0)).records.some((r) => r.end === end)
      )
        late.push(`${kind}${payload} (segment ${segmentOf(end)}, ending at ${offsetOf(end)}): durable, but after bytes that are not`);
      checked++;
      return end;
    });
  try {
    for (const writesInFlight of [1, 2, 3]) {
      // small segments: groups rotate into the next segment (made ahead) many times
      const spool = await Spool.open(dir, { segmentBytes: 2048, writesInFlight });
      try {
        const all: Promise<number>[] = [];
        for (let round = 0; round < 40; round++) {
          // a few appends in this turn (one group), then the next turn's, without waiting for the first
          for (let i = 0; i <= round % 5; i++)
            all.push(append(spool, i % 3 ? 'E' : 'G', JSON.stringify({ w: writesInFlight, round, i, pad: 'x'.repeat((round * 7) % 90) })));
          if (round % 4 === 0) await Promise.all(all.slice(-3));
          else await turn();
        }
        await Promise.all(all);
      } finally {
        await spool.close();
      }
    }
    assert.ok(checked > 300, `${checked} appends checked`);
    assert.ok(fs.readdirSync(dir).filter((f) => f.endsWith('.log')).length > 10, 'segments rotated');
    assert.deepEqual(late, [], 'acknowledged before durable');
  } finally {
    probe.restore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every 202 of POST /api/event (the raw path a tracker reaches) is sent after its event is durable in the spool', async () => {
  // the probe is in place before the spool makes its first segment
  const dataDir = tmp();
  const probe = await probeDurability(dataDir);
  const h = await collectHarness({ config: { dataDir } }).catch((err) => {
    probe.restore();
    throw err;
  });
  const realWriteHead = http.ServerResponse.prototype.writeHead;
  const late: string[] = [];
  let seen = 0;
  // the instant the server sends its status line: a 202 for a marked request must find its marker on disk
  http.ServerResponse.prototype.writeHead = function (this: http.ServerResponse, status: number, ...rest: unknown[]) {
    const marker = this.req?.headers['x-probe-marker'];
    if (typeof marker === 'string' && status === 202) {
      seen++;
      if (!probe.durablyHolds(marker)) late.push(marker);
    }
    return (realWriteHead as (...args: unknown[]) => http.ServerResponse).call(this, status, ...rest);
  } as typeof realWriteHead;
  try {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (h.app.server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const send = (marker: string, body: unknown) =>
      new Promise<number>((resolve, reject) => {
        const text = JSON.stringify(body);
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/event',
            agent,
            headers: {
              'content-type': 'text/plain',
              'content-length': Buffer.byteLength(text),
              'user-agent': CHROME,
              'x-probe-marker': marker,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    const statuses: number[] = [];
    for (let wave = 0; wave < 8; wave++) {
      const sent: Promise<number>[] = [];
      for (let i = 0; i < 25; i++) {
        const marker = `/durable-${wave}-${i}-${Math.random().toString(36).slice(2)}`;
        const url = `https://live.example${marker}`;
        // pageviews, and engagement events (a record of their own kind)
        sent.push(send(marker, i % 5 === 4 ? { n: 'engagement', d: 'live.example', u: url, e: 1500 + i } : pageview(url)));
      }
      statuses.push(...(await Promise.all(sent)));
    }
    agent.destroy();
    assert.deepEqual(new Set(statuses), new Set([202]));
    assert.equal(seen, 200, 'every 202 was seen as it was sent');
    assert.deepEqual(late, [], '202 sent before the event was durable');
    // and they are all there to load
    await h.flush();
    const pages = await h.breakdown('page', { metric: 'pageviews', limit: 1000 });
    assert.equal(Object.keys(pages).filter((p) => p.startsWith('/durable-')).length, 160);
  } finally {
    http.ServerResponse.prototype.writeHead = realWriteHead;
    probe.restore();
    await h.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
