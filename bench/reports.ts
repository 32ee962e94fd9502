// `npm run bench -- reports`: the mailed reports of 1,000 subscribers over 100 sites (10 each, one week's
// report due), sent by one sweep to a real SMTP server on loopback, on the embedded stack. Printed: the
// whole sweep's time, the reads of one report (median, the five /api/v2/query reads it makes), and
// beside them one /api/v2/query of the same period through HTTP (the totals with their comparison),
// measured in the same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer } from '../src/container.js';
import { FakeClock } from '../src/domain/clock.js';
import { latestDuePeriod } from '../src/domain/report-periods.js';
import { importLines, reidentify } from '../src/ingest/pipeline/import-lines.js';
import { readLineBatches } from '../src/ingest/pipeline/read-lines.js';
import { reportQueries } from '../src/services/report-mail/report-figures.js';
import { sendDueReports } from '../src/services/report-mail/send-reports.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import { randomBytes } from 'node:crypto';
import { startSmtpServer, TEST_CA_FILE } from '../test/http/helpers/smtp-test-server.js';
import type { BenchRow } from './run.js';
import { writeSiteEvents } from './generate.js';
import { median } from './median.js';

export const name = 'reports';

const SITES = 100;
const PER_SITE = 10;
const EVENTS_PER_SITE = 2_000;
const DAYS = 14;
// Monday 23 November 2026 06:00 UTC: the week of 16-22 November is due on every (UTC) site
const NOW = Date.parse('2026-11-23T06:00:00Z');

export async function run(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-reports-'));
  const smtp = await startSmtpServer();
  const clock = new FakeClock(NOW);
  const config = loadConfig(
    {
      dataDir: path.join(dir, 'data'),
      logLevel: 'silent',
      geoipDb: 'off',
      smtpUrl: smtp.url,
      mailFrom: 'reports@example.com',
      smtpCa: TEST_CA_FILE,
    },
    {},
  );
  const c = await buildContainer(config, { clock });
  try {
    const ws = await c.catalog.createWorkspace({ name: 'Agency', plan: 'enterprise' });
    const file = path.join(dir, 'events.ndjson');
    const parts: string[] = [];
    const startDayMs = Date.parse('2026-11-09T00:00:00Z');
    const sites: string[] = [];
    for (let i = 0; i < SITES; i++) {
      const s = await c.catalog.createSite({
        workspaceId: ws.id,
        name: `Client ${i}`,
        hostnames: [`c${i}.example.com`],
        collectionProfile: 'extended',
      });
      sites.push(s.id);
      const part = path.join(dir, `s${i}.ndjson`);
      // a few sites' small traffic can fall short of the last day with one seed: the next seed then
      for (let seed = i * 7 + 1; ; seed++) {
        try {
          writeSiteEvents(
            part,
            { siteId: s.id, tenants: [], days: DAYS, startDayMs, endMs: NOW - 6 * 3_600_000 - 1, seed },
            EVENTS_PER_SITE,
          );
          break;
        } catch (err) {
          if (seed > i * 7 + 6) throw err;
        }
      }
      parts.push(part);
      for (let k = 0; k < PER_SITE; k++)
        await c.reports!.subscribe({
          siteId: s.id,
          workspaceId: ws.id,
          tenantId: null,
          email: `reader${k}@client${i}.example`,
          period: 'week',
          userId: null,
          confirm: null,
          now: '2026-11-01T00:00:00.000Z',
        });
    }
    fs.writeFileSync(file, parts.map((p) => fs.readFileSync(p, 'utf8')).join(''));
    await importLines(readLineBatches(Readable.from(fs.createReadStream(file))), {
      format: { kind: 'events' },
      catalog: c.catalog,
      sink: await c.events.beginImport({ reidentify }),
      nowMs: NOW,
    });

    // one /api/v2/query of the same period, through HTTP, before and after the sweep
    const app = await buildApp(c);
    const secret = generateSecret(randomBytes);
    await c.catalog.createToken({
      workspaceId: ws.id,
      secretHash: hashSecret(secret),
      scopes: ['metrics:read'],
      siteIds: null,
      tenantIds: null,
    });
    const due = latestDuePeriod('week', 'UTC', NOW);
    const one: number[] = [];
    for (let i = 0; i < 30; i++) {
      const site = (await c.catalog.getSite(sites[i % SITES]))!;
      const started = performance.now();
      const r = await app.inject({
        method: 'POST',
        url: '/api/v2/query',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        payload: JSON.stringify(reportQueries({ site, tenant: null, due }).totals),
      });
      one.push(performance.now() - started);
      if (r.statusCode !== 200) throw new Error(`query: ${r.statusCode} ${r.body}`);
    }
    const started = performance.now();
    const sweep = await sendDueReports({ ...c, mailer: c.mailer!, reports: c.reports!, people: c.people! }, NOW);
    const sweepMs = performance.now() - started;
    if (sweep.sent !== SITES * PER_SITE || smtp.received.length !== SITES * PER_SITE)
      throw new Error(`sent ${sweep.sent}, received ${smtp.received.length}, retrying ${sweep.retrying}, failed ${sweep.failed}`);
    await app.close();
    const perReport = median(sweep.readMs);
    const query = median(one);
    return [
      {
        bench: name,
        case: `${SITES * PER_SITE} subscribers over ${SITES} sites, ${SITES * EVENTS_PER_SITE} events`,
        'sweep s': Math.round(sweepMs / 10) / 100,
        'reports/s': Math.round((SITES * PER_SITE) / (sweepMs / 1000)),
        'reads per report p50 ms': Math.round(perReport * 10) / 10,
        'one v2 query p50 ms': Math.round(query * 10) / 10,
        'report / query': Math.round((perReport / query) * 100) / 100,
      },
    ];
  } finally {
    await c.close();
    await smtp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
