// The mailed report's message (src/services/report-mail/report-message.ts): subject words, the one-click
// unsubscribe headers, every figure and row in the text part, and an HTML part that escapes what visitors
// and people wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReportData } from '../../../src/services/report-mail/report-data.js';
import { reportMessage } from '../../../src/services/report-mail/report-message.js';

const TO = 'owner@example.com';
const UNSUBSCRIBE = 'https://footfall.example/reports/unsubscribe/s1?token=a&b=1';
const DASHBOARD = 'https://footfall.example/app/sites/s1?from=2026-11-16&to=2026-11-22';
const HOSTILE = '/a<script>&"\'';

function data(over: Partial<ReportData> = {}): ReportData {
  return {
    siteName: 'example.com',
    tenantName: null,
    period: { period: 'week', from: '2026-11-16', to: '2026-11-22', dueMs: Date.UTC(2026, 10, 22, 23) },
    timezone: 'Europe/Paris',
    totals: {
      visitors: { value: 12_345, previous: 11_022, change: 12 },
      visits: { value: 15_001, previous: null, change: null },
      pageviews: { value: 40_210, previous: 41_452, change: -3 },
      bounce_rate: { value: 41.5, previous: 44.5, change: -3 },
      visit_duration: { value: 65, previous: 3725, change: 27.5 },
    },
    pages: [
      { name: '/', visitors: 8_100 },
      { name: HOSTILE, visitors: 42 },
      { name: '/blog/été-über', visitors: 7 },
    ],
    sources: [{ name: 'Google', visitors: 3_210 }],
    countries: [{ name: 'Côte d’Ivoire', visitors: 1_001 }],
    goals: [{ goal: 'Signup', visitors: 120, events: 131, conversionRate: 0.97 }],
    dashboardUrl: DASHBOARD,
    unsubscribeUrl: UNSUBSCRIBE,
    ...over,
  };
}

/** The text part's lines that start with `label`, spaces collapsed. */
function line(text: string, label: string): string {
  const found = text.split('\n').find((l) => l.startsWith(label));
  assert.ok(found, `a line starting with ${label}`);
  return found.replace(/ +/g, ' ');
}

test('the subject names the report, the site (and tenant) and the period in words', () => {
  assert.equal(reportMessage(TO, data()).subject, 'Weekly report for example.com: 16 Nov to 22 Nov 2026');
  const month = data({ period: { period: 'month', from: '2026-11-01', to: '2026-11-30', dueMs: 0 } });
  assert.equal(reportMessage(TO, month).subject, 'Monthly report for example.com: November 2026');
  assert.equal(
    reportMessage(TO, data({ tenantName: 'Acme' })).subject,
    'Weekly report for example.com, tenant Acme: 16 Nov to 22 Nov 2026',
  );
  assert.equal(reportMessage(TO, data()).to, TO);
});

test('a line break (or another control character) in a chosen name stays off the subject line', () => {
  const m = reportMessage(TO, data({ siteName: 'evil.example\r\nBcc: all@example.com', tenantName: 'Ac\u2028me\u0085\u0000x' }));
  assert.doesNotMatch(m.subject, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  assert.equal(m.subject, 'Weekly report for evil.example Bcc: all@example.com, tenant Ac me x: 16 Nov to 22 Nov 2026');
  assert.ok(m.text.startsWith('Weekly report for evil.example Bcc: all@example.com, tenant Ac me x\n'));
});

test('the one-click unsubscribe headers of RFC 8058 carry the subscriber’s link', () => {
  assert.deepEqual(reportMessage(TO, data()).headers, {
    'List-Unsubscribe': `<${UNSUBSCRIBE}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  });
});

test('the text part holds the period, every figure with the one before and its change, every row and both links', () => {
  const { text } = reportMessage(TO, data());
  assert.match(text, /^Weekly report for example\.com\n16 Nov to 22 Nov 2026, days counted in Europe\/Paris\n/);
  assert.equal(line(text, ' '), ' This week Week before Change');
  assert.equal(line(text, 'Visitors '), 'Visitors 12,345 11,022 +12%');
  assert.equal(line(text, 'Visits '), 'Visits 15,001 n/a n/a');
  assert.equal(line(text, 'Pageviews'), 'Pageviews 40,210 41,452 -3%');
  assert.equal(line(text, 'Bounce rate'), 'Bounce rate 41.5% 44.5% -3 pts');
  assert.equal(line(text, 'Visit duration'), 'Visit duration 1m 05s 1h 02m +27.5%');
  for (const title of ['Top pages', 'Top sources', 'Top countries', 'Goal conversions']) assert.match(text, new RegExp(`^${title}$`, 'm'));
  assert.match(text, /^ +8,100 {2}\/$/m);
  assert.match(text, new RegExp(`^ +42  ${HOSTILE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.match(text, /^ +7 {2}\/blog\/été-über$/m);
  assert.match(text, /^ +3,210 {2}Google$/m);
  assert.match(text, /^ +1,001 {2}Côte d’Ivoire$/m);
  assert.equal(line(text, 'Visitors  Events'), 'Visitors Events Conversion rate Goal');
  assert.match(text, /^ +120 +131 +1% {2}Signup$/m);
  assert.ok(text.includes(`Open the dashboard: ${DASHBOARD}\n`));
  assert.ok(text.includes(`You get this because ${TO} is subscribed to the weekly report of example.com.`));
  assert.ok(text.endsWith(`\nUnsubscribe: ${UNSUBSCRIBE}\n`));
});

test('numbers are grouped, percents keep one decimal when not whole, and changes show their sign', () => {
  const totals = data().totals;
  const m = reportMessage(
    TO,
    data({
      period: { period: 'month', from: '2026-11-01', to: '2026-11-30', dueMs: 0 },
      totals: {
        ...totals,
        visitors: { value: 1_234_567, previous: 0, change: 0.04 },
        bounce_rate: { value: 50, previous: 48.75, change: 1.02 },
        visit_duration: { value: 9, previous: 59.6, change: -84.9 },
      },
      goals: [{ goal: 'Signup', visitors: 5, events: 5, conversionRate: 12.25 }],
    }),
  );
  assert.equal(line(m.text, ' '), ' This month Month before Change');
  assert.equal(line(m.text, 'Visitors '), 'Visitors 1,234,567 0 0%');
  assert.equal(line(m.text, 'Bounce rate'), 'Bounce rate 50% 48.8% +1 pt');
  assert.equal(line(m.text, 'Visit duration'), 'Visit duration 9s 1m 00s -84.9%');
  assert.match(m.text, / 12\.3% {2}Signup$/m);
  assert.ok(m.text.includes('subscribed to the monthly report of example.com.'));
});

test('empty lists say so: no visits at all, none of a kind, no goal conversions', () => {
  const zero = { value: 0, previous: 0, change: null };
  const quiet = reportMessage(
    TO,
    data({
      totals: { visitors: zero, visits: zero, pageviews: zero, bounce_rate: zero, visit_duration: zero },
      pages: [],
      sources: [],
      countries: [],
      goals: [],
    }),
  );
  assert.equal(quiet.text.match(/^No visits\.$/gm)?.length, 3);
  assert.match(quiet.text, /^Goal conversions\n-+\nNo goal conversions\.$/m);
  assert.equal(quiet.html.match(/>No visits\.</g)?.length, 3);
  assert.match(quiet.html, />No goal conversions\.</);
  assert.doesNotMatch(quiet.html, /<th /);
  // visits but no source (direct visits only): not "No visits."
  const direct = reportMessage(TO, data({ sources: [] }));
  assert.match(direct.text, /^Top sources\n-+\nNone recorded\.$/m);
  assert.doesNotMatch(direct.text, /No visits/);
});

test('the HTML escapes a hostile page path and site name and runs nothing', () => {
  const { html } = reportMessage(TO, data({ siteName: '<img src=x onerror=alert(1)>"Shop"', tenantName: 'A&B' }));
  const site = '&#60;img src=x onerror=alert(1)&#62;&#34;Shop&#34;, tenant A&#38;B';
  assert.ok(html.includes('>/a&#60;script&#62;&#38;&#34;&#39;</td>'), 'the path, escaped');
  assert.ok(html.includes(`<title>Weekly report for ${site}: 16 Nov to 22 Nov 2026</title>`), 'the title, escaped');
  assert.ok(html.includes(`>Weekly report for ${site}</h1>`), 'the heading, escaped');
  assert.ok(html.includes(`subscribed to the weekly report of ${site}.`), 'the footer, escaped');
  // nothing runs and nothing is fetched when the mail is opened
  assert.doesNotMatch(html, /<script|<img|<style|<link|url\(/i);
  assert.doesNotMatch(html, /<[a-z][^>]*\s(on\w+|src)=/i, 'no handler or source attribute in any tag');
});

test('the HTML is a whole English document with the figures, the rows, the dashboard and unsubscribe links', () => {
  const { html } = reportMessage(TO, data());
  assert.match(html, /^<!doctype html>\n<html lang="en">/);
  assert.match(html, /<title>Weekly report for example\.com: 16 Nov to 22 Nov 2026<\/title>/);
  assert.match(html, /max-width:600px/);
  const esc = (s: string) => s.replace(/&/g, '&#38;');
  assert.match(html, new RegExp(`<a href="${esc(DASHBOARD).replace(/[?.]/g, '\\$&')}"[^>]*>Open the dashboard</a>`));
  assert.match(html, new RegExp(`<a href="${esc(UNSUBSCRIBE).replace(/[?.]/g, '\\$&')}"[^>]*>Unsubscribe</a>`));
  assert.ok(html.includes(`You get this because ${TO} is subscribed to the weekly report of example.com.`));
  for (const shown of ['12,345', '+12%', 'was 11,022', '-3 pts', '41.5%', '1m 05s', 'was 1h 02m', 'nothing to compare', 'n/a'])
    assert.ok(html.includes(`>${shown}<`), shown);
  for (const col of ['Page', 'Source', 'Country', 'Goal', 'Visitors', 'Events', 'Conversion rate'])
    assert.ok(new RegExp(`<th scope="col"[^>]*>${col}</th>`).test(html), col);
  for (const cell of ['8,100', '/blog/été-über', 'Côte d’Ivoire', '3,210', '131', '1%']) assert.ok(html.includes(`>${cell}</td>`), cell);
});
