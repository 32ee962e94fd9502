// Mailed reports end to end in one process, through a real SMTP server on loopback: a report's figures
// are /api/v2/query's for its period (a site in Asia/Kathmandu, and one tenant of it); an outside
// address gets only a confirmation until it follows the link (a GET confirms nothing); the report goes
// once per period and subscriber, with RFC 8058's headers, text and HTML parts, and a one-click
// unsubscribe that works; a refusing server is tried again after the backoff and counted; a member's
// own subscription ends with the membership; no secret or address reaches the log.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { latestDuePeriod } from '../../src/domain/report-periods.js';
import { dayStart } from '../../src/domain/zoned-time.js';
import { addDays } from '../../src/domain/report-range.js';
import { OPERATOR, siteAccess } from '../../src/services/manage/access.js';
import { gatherReport, reportQueries } from '../../src/services/report-mail/report-figures.js';
import { RETRY_WAITS_MS, sendDueReports, type SendDeps } from '../../src/services/report-mail/send-reports.js';
import { subscribe } from '../../src/services/report-mail/subscriptions.js';
import { PrometheusMetrics } from '../../src/http/prometheus/prometheus-metrics.js';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';
import { person } from './helpers/app-api.js';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, TEST_CA_FILE, type SmtpTestServer } from './helpers/smtp-test-server.js';

const ZONE = 'Asia/Kathmandu';
// the week of 16-22 November 2026 in Kathmandu (UTC+05:45), due at 00:00 on Monday the 23rd there
const WEEK = '2026-11-16';
const DUE_MS = dayStart(ZONE, '2026-11-23');

let smtp: SmtpTestServer;
let h: MetricsHarness;
let site: string;
let tenant: string;
let log = '';
let deps: SendDeps;
const metrics = new PrometheusMetrics();

before(async () => {
  smtp = await startSmtpServer();
  h = await metricsHarness({
    now: '2026-11-10T00:00:00Z',
    config: { smtpUrl: smtp.url, mailFrom: 'Footfall <reports@example.com>', smtpCa: TEST_CA_FILE },
  });
  site = await h.site({ timezone: ZONE });
  tenant = await h.tenant(site, 'acme', 'Acme');
  await h.catalog.createGoal({ siteId: site, name: 'Signup', type: 'PAGEVIEW_MATCH', intent: 'signup', pattern: '/signup', filters: {} });
  h.clock.set('2026-11-30T00:00:00Z');
  // 18:14Z on the 15th is 23:59 on the 15th in Kathmandu (the week before); 18:16Z is 00:01 on the 16th
  await h.importEvents([
    pv(site, '2026-11-15T18:14:00Z', '/late', 'a'),
    pv(site, '2026-11-09T10:00:00Z', '/', 'b', { referrer: 'https://news.example.org/x' }),
    pv(site, '2026-11-15T18:16:00Z', '/', 'a', { referrer: 'https://news.example.org/x', country: 'DE' }),
    pv(site, '2026-11-15T18:17:00Z', '/signup', 'a'),
    pv(site, '2026-11-18T09:00:00Z', '/pricing', 'c', { tenant_id: tenant, country: 'FR' }),
    pv(site, '2026-11-18T09:01:00Z', '/signup', 'c', { tenant_id: tenant }),
    pv(site, '2026-11-20T12:00:00Z', '/a<b>&"c"', 'd', { referrer: 'https://search.example.com/' }),
    // 18:15Z on the 22nd is 00:00 on the 23rd there: the next week
    pv(site, '2026-11-22T18:15:00Z', '/next', 'e'),
  ]);
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app = await buildApp(h.container, { logger: { level: 'trace', stream } });
  const c = h.container;
  deps = { ...c, metrics, mailer: c.mailer!, reports: c.reports!, people: c.people! };
  const logger = { info: (o: object, m?: string) => app.log.info(o, m), warn: (o: object, m?: string) => app.log.warn(o, m) };
  sweepLog = logger;
});
after(async () => {
  await h.close();
  await smtp.close();
});

let sweepLog: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
const sweep = (atMs: number) => sendDueReports(deps, atMs, sweepLog);

const subDeps = () => ({ ...h.container, reports: h.container.reports!, publicUrl: h.container.config.publicUrl });

async function access() {
  const a = await siteAccess(h.container as never, OPERATOR, site, 'owner');
  return { ...a, tenant: null };
}

test('the period due: the ISO week and the month before, from local midnight on', () => {
  assert.deepEqual(latestDuePeriod('week', ZONE, DUE_MS), { period: 'week', from: WEEK, to: '2026-11-22', dueMs: DUE_MS });
  assert.equal(latestDuePeriod('week', ZONE, DUE_MS - 1).from, '2026-11-09');
  const month = latestDuePeriod('month', 'America/New_York', Date.parse('2026-11-01T04:00:00Z'));
  assert.deepEqual([month.from, month.to], ['2026-10-01', '2026-10-31']);
  assert.equal(latestDuePeriod('month', 'America/New_York', Date.parse('2026-11-01T03:59:59Z')).from, '2026-09-01');
});

test("a report's figures are /api/v2/query's answers to the same bodies, for the site and for a tenant", async () => {
  const workspace = h.ws;
  const s = (await h.catalog.getSite(site))!;
  const t = (await h.catalog.getTenant(tenant))!;
  const due = latestDuePeriod('week', ZONE, DUE_MS);
  for (const ten of [null, t]) {
    const { data } = await gatherReport(h.container, { workspace, site: s, tenant: ten, due });
    const q = reportQueries({ site: s, tenant: ten, due });
    const answer = async (body: object) => {
      const r = await h.post('/api/v2/query', body, { token: h.secret });
      assert.equal(r.statusCode, 200, r.body);
      return r.json().results as { dimensions: string[]; metrics: number[]; comparison: { metrics: number[]; change: number[] } }[];
    };
    const [totals] = await answer(q.totals);
    assert.deepEqual(
      Object.values(data.totals).map((f) => [f.value, f.previous, f.change]),
      totals.metrics.map((v, i) => [v, totals.comparison.metrics[i], totals.comparison.change[i]]),
    );
    for (const part of ['pages', 'sources', 'countries'] as const)
      assert.deepEqual(
        data[part].map((r) => [r.name, r.visitors]),
        (await answer(q[part])).map((r) => [r.dimensions[0], r.metrics[0]]),
        part,
      );
    assert.deepEqual(
      data.goals.map((g) => [g.goal, g.visitors, g.events, g.conversionRate]),
      (await answer(q.goals)).map((r) => [r.dimensions[0], ...r.metrics]),
    );
  }
  // what the events say, so the equality above is not of two empty answers
  const { data } = await gatherReport(h.container, { workspace, site: s, tenant: null, due });
  assert.deepEqual([data.totals.visitors.value, data.totals.visitors.previous], [3, 2]);
  assert.deepEqual(data.pages.map((p) => p.name).sort(), ['/', '/a<b>&"c"', '/pricing', '/signup']);
  assert.deepEqual(
    data.goals.map((g) => [g.goal, g.visitors]),
    [['Signup', 2]],
  );
  const { data: acme } = await gatherReport(h.container, { workspace, site: s, tenant: t, due });
  assert.deepEqual(
    [acme.totals.visitors.value, acme.pages.map((p) => p.name).sort(), acme.countries.map((c) => c.name)],
    [1, ['/pricing', '/signup'], ['France']],
  );
});

test('an outside address: a confirmation only; the GET confirms nothing, the POST does; then one report per period', async () => {
  const before = smtp.received.length;
  h.clock.set('2026-11-20T00:00:00Z');
  const r = await subscribe(subDeps(), await access(), { email: 'Reader@Example.org', period: 'week', self: false });
  assert.deepEqual(
    [r.created, r.confirmation, r.subscription.email, r.subscription.confirmedAt],
    [true, { mailed: true }, 'reader@example.org', null],
  );
  const confirmation = await smtp.nth(before + 1);
  assert.deepEqual(confirmation.to, ['reader@example.org']);
  const link = /http:\/\/127\.0\.0\.1:8080(\/app\/reports\/confirm\/[0-9A-Za-z]{32})/.exec(confirmation.body)![1];
  assert.equal((await sweep(DUE_MS + 60_000)).sent, 0, 'nothing but the confirmation before it is followed');

  const shown = await h.app.inject({ method: 'GET', url: link });
  assert.equal(shown.statusCode, 200);
  assert.match(shown.body, /<form method="post"><button type="submit">Confirm<\/button>/);
  assert.equal(
    (await h.container.reports!.getSubscription(r.subscription.id))?.confirmedAt,
    null,
    'a GET (a link scanner) confirms nothing',
  );
  const confirmed = await h.app.inject({ method: 'POST', url: link });
  assert.equal(confirmed.statusCode, 200);
  assert.match(confirmed.body, /weekly report will be mailed to reader@example\.org/);
  assert.equal((await h.app.inject({ method: 'POST', url: link })).statusCode, 404, 'the link works once');

  const sent = await sweep(DUE_MS + 60_000);
  assert.deepEqual([sent.sent, sent.retrying, sent.failed], [1, 0, 0]);
  const mail = await smtp.nth(before + 2);
  assert.deepEqual([mail.to, mail.secure, mail.user], [['reader@example.org'], true, SMTP_USER], 'over STARTTLS, signed in');
  assert.equal(mail.headers.subject, `Weekly report for ${(await h.catalog.getSite(site))!.name}: 16 Nov to 22 Nov 2026`);
  const unsubscribe = /^<http:\/\/127\.0\.0\.1:8080(\/app\/reports\/unsubscribe\/rep_[0-9A-Za-z]+\.[0-9A-Za-z_-]{43})>$/.exec(
    mail.headers['list-unsubscribe'],
  )![1];
  assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');
  assert.match(mail.headers['content-type'], /^multipart\/alternative/);
  assert.match(mail.body, /Content-Type: text\/plain/);
  assert.match(mail.body, /Content-Type: text\/html/);
  assert.match(mail.body, /Visitors\s+3\s+2\s+\+50%/);
  assert.match(mail.body, /Signup/);
  assert.ok(
    mail.body.includes(`/a&#60;b&#62;&#38;&#34;c&#34;`) || mail.body.includes('/a&lt;b&gt;&amp;&quot;c&quot;'),
    'the path escaped in HTML',
  );

  // once per period: later sweeps of the same week send nothing, also two at once
  const again = await Promise.all([sweep(DUE_MS + 120_000), sweep(DUE_MS + 120_000), sweep(DUE_MS + 86_400_000)]);
  assert.deepEqual(
    again.map((s) => s.sent),
    [0, 0, 0],
  );
  assert.equal(smtp.received.length, before + 2);

  // one click: a GET shows a button, the mail client's POST unsubscribes
  assert.match((await h.app.inject({ method: 'GET', url: unsubscribe })).body, /<button type="submit">Unsubscribe<\/button>/);
  assert.ok(await h.container.reports!.getSubscription(r.subscription.id));
  const tampered = unsubscribe.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
  const bad = await h.app.inject({
    method: 'POST',
    url: tampered,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });
  assert.equal(bad.statusCode, 404);
  const one = await h.app.inject({
    method: 'POST',
    url: unsubscribe,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });
  assert.equal(one.statusCode, 200);
  assert.match(one.body, /No more of these reports/);
  assert.equal(await h.container.reports!.getSubscription(r.subscription.id), null);
  assert.equal((await sweep(DUE_MS + 7 * 86_400_000 + 60_000)).sent, 0, 'nothing after unsubscribing');
});

test('a refusing mail server: tried again after the backoff, counted, and logged without a secret or an address', async () => {
  h.clock.set('2026-11-20T00:00:00Z');
  const r = await subscribe(subDeps(), await access(), { email: 'retry@example.org', period: 'week', self: false, confirmed: true });
  const at = DUE_MS + 7 * 86_400_000 + 60_000; // the week of the 23rd
  const before = smtp.received.length;
  smtp.refuseNext(1);
  const first = await sweep(at);
  assert.deepEqual([first.sent, first.retrying], [0, 1]);
  assert.equal(smtp.refusedMessages, 1);
  const [d] = await h.container.reports!.listDeliveries(r.subscription.id);
  assert.deepEqual([d.state, d.attempts, d.notBefore], ['retry', 1, new Date(at + RETRY_WAITS_MS[0]).toISOString()]);
  assert.match(d.lastError!, /refused the message \(reply 451\)/);
  assert.equal((await sweep(at + RETRY_WAITS_MS[0] - 1000)).sent, 0, 'not before the wait');
  assert.equal((await sweep(at + RETRY_WAITS_MS[0])).sent, 1);
  assert.equal(smtp.received.length, before + 1);
  assert.equal((await h.container.reports!.listDeliveries(r.subscription.id))[0].state, 'sent');
  const counted = await metrics.text();
  assert.match(counted, /footfall_report_mails_total\{outcome="retry"\} 1/);
  assert.match(counted, /footfall_report_mails_total\{outcome="sent"\} [1-9]/);
  assert.match(log, /report mail not sent, tried again at .*refused the message \(reply 451\)/);
  const mail = smtp.received[before];
  const link = /unsubscribe\/(rep_[^>\s]+)/.exec(mail.headers['list-unsubscribe'])![1];
  for (const secret of [SMTP_PASSWORD, encodeURIComponent(SMTP_PASSWORD), link, 'retry@example.org', 'reader@example.org'])
    assert.ok(!log.includes(secret), `the log holds ${secret}`);
});

test("a tenant's subscriber gets that tenant's report: its name in the subject, its numbers only", async () => {
  h.clock.set('2026-11-20T00:00:00Z');
  const a = await access();
  const acme = (await h.catalog.getTenant(tenant))!;
  const r = await subscribe(subDeps(), { ...a, tenant: acme }, { email: 'acme@example.org', period: 'week', self: false, confirmed: true });
  assert.equal(r.subscription.tenantId, tenant);
  const before = smtp.received.length;
  // the week of 16-22 November again, for this new subscriber (due after it was confirmed; the earlier
  // test's retry@ subscriber, confirmed the same day, gets that week now too)
  const sent = await sweep(DUE_MS + 60_000);
  const mine = smtp.received.slice(before).filter((m) => m.to.includes('acme@example.org'));
  assert.equal(mine.length, 1, `${sent.sent} sent`);
  const mail = mine[0];
  assert.match(mail.headers.subject, /, tenant Acme: 16 Nov to 22 Nov 2026$/);
  // acme had one visitor (c, on /pricing then /signup, from France); the site as a whole had three
  assert.match(mail.body, /Visitors\s+1\s/);
  assert.match(mail.body, /France/);
  assert.doesNotMatch(mail.body, /Germany|news\.example\.org|\/late\b/);
  await h.container.reports!.unsubscribe(r.subscription.id);
});

test("a member's own subscription is confirmed at once and ends with the membership", async () => {
  h.clock.set('2026-11-20T00:00:00Z');
  const member = await person(h, { workspaceId: h.ws.id, role: 'viewer' });
  const a = await siteAccess(h.container as never, { kind: 'person', user: member.user }, site, 'viewer');
  const r = await subscribe(subDeps(), { ...a, tenant: null }, { period: 'month', self: true });
  assert.deepEqual([r.subscription.email, r.confirmation, r.subscription.confirmedAt !== null], [member.email, null, true]);
  await assert.rejects(
    subscribe(subDeps(), { ...a, tenant: null }, { email: 'other@example.org', period: 'month', self: false }),
    /needs the admin role/,
  );
  await h.people.removeMember(h.ws.id, member.user.id);
  const dec1 = dayStart(ZONE, '2026-12-01') + 60_000;
  const before = smtp.received.length;
  await sweep(dec1);
  assert.ok(!smtp.received.slice(before).some((m) => m.to.includes(member.email)), 'no report to a former member');
  assert.equal(await h.container.reports!.getSubscription(r.subscription.id), null);
  assert.equal(addDays('2026-12-01', -1), '2026-11-30');
});
