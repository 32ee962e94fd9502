// The importer's contract with its input: bad lines, repeats, access logs, all-or-nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { action, harness, NOW, pv } from './harness.js';
import { importLines, reidentify } from '../../src/ingest/pipeline/import-lines.js';
import { readLineBatches } from '../../src/ingest/pipeline/read-lines.js';
import { validateEventLine } from '../../src/ingest/parse/validate.js';
import { normalizeEvent } from '../../src/ingest/parse/normalize.js';

test('bad lines are rejected with their line number and reason; the rest import', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const summary = await h.run([
      pv(s, '2025-03-05T10:00:00Z'),
      '{"ts": "2025-03-05T10:00:00Z", "type": "pageview"',
      '',
      pv(s, '2025-03-05T10:01:00Z', { type: 'click' }),
      pv('site_unknown', '2025-03-05T10:02:00Z'),
      pv(s, '2025-03-10T12:05:00.001Z'), // more than 5 minutes after NOW
      pv(s, '2025-03-05T10:03:00Z', { tenant_id: 'ten_nope' }),
      pv(s, '2025-03-05T10:04:00Z'),
    ]);
    assert.equal(summary.imported, 2);
    assert.equal(summary.rejected, 5);
    assert.deepEqual(
      summary.errors.map((e) => e.line),
      [2, 4, 5, 6, 7],
    );
    assert.match(summary.errors[0].reason, /JSON/);
    assert.match(summary.errors[1].reason, /type/);
    assert.match(summary.errors[2].reason, /unknown site_id "site_unknown"/);
    assert.match(summary.errors[3].reason, /future/);
    assert.match(summary.errors[4].reason, /tenant_id "ten_nope"/);
    assert.equal(summary.lines, 8);
  } finally {
    await h.close();
  }
});

test('the errors list is capped while the counts stay complete', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const lines = Array.from({ length: 130 }, () => 'nope');
    const summary = await h.run([...lines, pv(s, '2025-03-05T10:00:00Z')]);
    assert.equal(summary.rejected, 130);
    assert.equal(summary.errors.length, 100);
    assert.equal(summary.errors_truncated, true);
    assert.equal(summary.imported, 1);
  } finally {
    await h.close();
  }
});

test('identical lines in one import are all kept; importing them again adds none', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    // chunkSize 2 in the harness puts the copies in different chunks
    const line = pv(s, '2025-03-05T10:00:00Z');
    const first = await h.run([line, pv(s, '2025-03-05T10:01:00Z'), line, line]);
    assert.equal(first.imported, 4);
    const again = await h.run([line, line, line, pv(s, '2025-03-05T10:01:00Z')]);
    assert.deepEqual([again.imported, again.duplicates], [0, 4]);
    const more = await h.run([line, line, line, line]);
    assert.deepEqual([more.imported, more.duplicates], [1, 3], 'a fourth copy in a batch is a new event');
  } finally {
    await h.close();
  }
});

test('--site: lines without site_id belong to it', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const { site_id: _, ...line } = pv(s, '2025-03-05T10:00:00Z');
    const summary = await h.run([line], { site: s });
    assert.equal(summary.imported, 1);
    assert.deepEqual(await h.query(`SELECT site_id FROM events`), [{ site_id: s }]);
  } finally {
    await h.close();
  }
});

test('an access log imports its page requests as pageviews and skips the rest', async () => {
  const h = await harness();
  try {
    const s = await h.site({ hostnames: ['www.example.com'] });
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const summary = await h.run(
      [
        `203.0.113.7 - - [05/Mar/2025:10:00:00 +0000] "GET /pricing?utm_medium=email HTTP/1.1" 200 512 "https://www.google.com/" "${ua}"`,
        `203.0.113.7 - - [05/Mar/2025:10:00:01 +0000] "GET /app.css HTTP/1.1" 200 512 "https://www.example.com/pricing" "${ua}"`,
        `203.0.113.7 - - [05/Mar/2025:10:02:00 +0000] "GET /docs HTTP/1.1" 200 512 "https://www.example.com/pricing" "${ua}"`,
        'garbage',
      ],
      { site: s, format: { kind: 'access-log', format: 'combined' } },
    );
    assert.deepEqual([summary.imported, summary.skipped, summary.rejected], [2, 1, 1]);
    assert.equal(summary.errors[0].line, 4);
    const [session] = await h.query(`SELECT channel, entry_page, exit_page, browser_family, pageviews FROM sessions`);
    assert.deepEqual(session, { channel: 'Email', entry_page: '/pricing', exit_page: '/docs', browser_family: 'Chrome', pageviews: '2' });
  } finally {
    await h.close();
  }
});

test('a sink failure in the middle leaves nothing of the import', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([pv(s, '2025-03-04T10:00:00Z')]);
    let appends = 0;
    await assert.rejects(
      h.run(
        Array.from({ length: 10 }, (_, i) => pv(s, `2025-03-05T10:0${i}:00Z`)),
        {
          sink: (inner) => ({
            append: async (rows) => {
              if (++appends === 3) throw new Error('disk full');
              await inner.append(rows);
            },
            commit: () => inner.commit(),
            abort: () => inner.abort(),
          }),
        },
      ),
      /disk full/,
    );
    assert.deepEqual(await h.query('SELECT count(*) AS n FROM events'), [{ n: '1' }]);
    assert.deepEqual(await h.query('SELECT count(*) AS n FROM sessions'), [{ n: '1' }]);
  } finally {
    await h.close();
  }
});

test('an input that breaks off (read error) stores nothing of it', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const good = JSON.stringify(pv(s, '2025-03-05T10:00:00Z')) + '\n';
    const input = new Readable({
      read() {
        this.push(Buffer.from(good + good));
        this.destroy(new Error('connection reset'));
      },
    });
    const session = await h.store.beginImport({ reidentify });
    await assert.rejects(
      importLines(readLineBatches(input), {
        format: { kind: 'events' },
        catalog: h.control.catalog,
        sink: session,
        nowMs: NOW,
        chunkSize: 1,
      }),
      /connection reset/,
    );
    assert.deepEqual(await h.query('SELECT count(*) AS n FROM events'), [{ n: '0' }]);
  } finally {
    await h.close();
  }
});

test('the importer stores exactly what normalizeEvent gives for lines with ip and user agent', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const lines = [
      pv(s, '2025-03-05T10:00:00Z', {
        visitor_key: undefined,
        ip: '198.51.100.4',
        user_agent:
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      }),
      pv(s, '2025-03-05T10:00:00Z', {
        visitor_key: undefined,
        ip: '198.51.100.5',
        user_agent: 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)',
        device_type: 'desktop',
      }),
      action(s, '2025-03-05T10:00:09Z', 'ui.click', { visitor_key: 'kept', user_agent: 'curl/8.0', traffic_class: 'human' }),
    ];
    await h.run(lines);
    const site = (await h.control.catalog.getSite(s))!;
    const secret = await h.control.catalog.getOrCreateSecret('visitor-salt');
    const expected = lines.map((l) => {
      const v = validateEventLine(JSON.parse(JSON.stringify(l)), { nowMs: NOW });
      assert.ok(v.ok);
      const e = normalizeEvent(v.event, site, secret)!;
      return [e.visitor_key, e.device_type, e.browser_family, e.os_family, e.traffic_class];
    });
    const got = await h.query(
      'SELECT visitor_key, device_type, browser_family, os_family, traffic_class FROM events ORDER BY ts_ms, visitor_key',
    );
    assert.deepEqual(
      got.map((r) => [r.visitor_key, r.device_type, r.browser_family, r.os_family, r.traffic_class]).sort(),
      expected.sort(),
    );
  } finally {
    await h.close();
  }
});
