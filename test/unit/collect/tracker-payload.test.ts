// The tracker's payload read into one shape (both key sets), and mapped onto the import line that the
// importer's own validation accepts (docs/product.md §3, §9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTrackerBody, toImportLine, type TrackerEvent } from '../../../src/ingest/collect/tracker-payload.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';

const ctx = { siteId: 'site_x', tenantId: null, tsMs: Date.parse('2025-06-15T12:00:00.000Z'), ip: '198.51.100.1', userAgent: 'UA' };

function parsed(body: unknown): TrackerEvent {
  const r = parseTrackerBody(JSON.stringify(body));
  assert.ok(r.ok, JSON.stringify(r));
  return r.event;
}

test('short and long keys read the same; v, sd, revenue and unknown keys are ignored', () => {
  const short = parsed({
    n: 'Signup',
    u: 'https://a.example/x',
    d: 'a.example',
    r: 'https://ref.example/',
    p: { plan: 'pro', n: 3, ok: true, gone: null },
    $: { amount: 1 },
    v: 36,
  });
  const long = parsed({
    name: 'Signup',
    url: 'https://a.example/x',
    domain: 'a.example',
    referrer: 'https://ref.example/',
    props: { plan: 'pro', n: 3, ok: true, gone: null },
    revenue: { amount: 1 },
    extra: 1,
  });
  assert.deepEqual(short, long);
  assert.deepEqual(short.props, { plan: 'pro', n: '3', ok: 'true' });
  // Server-side senders may send props as a JSON string.
  assert.deepEqual(parsed({ name: 'Signup', url: 'https://a.example/', domain: 'a.example', props: '{"plan":"pro"}' }).props, {
    plan: 'pro',
  });
  assert.equal(parsed({ n: 'pageview', u: 'https://a.example/', d: 'a.example', r: '' }).referrer, null);
});

test('what is not a JSON object is 400; a bad field is 422 naming it', () => {
  for (const body of ['nope', '"string"', '[]', 'null', '{"a":'])
    assert.deepEqual(parseTrackerBody(body), { ok: false, status: 400, message: 'The body must be a JSON object (the event).' });
  const bad = (body: unknown) => {
    const r = parseTrackerBody(JSON.stringify(body));
    assert.ok(!r.ok && r.status === 422, JSON.stringify(r));
    return r.field;
  };
  assert.equal(bad({ u: 'https://a.example/', d: 'a' }), 'name');
  assert.equal(bad({ n: 'pageview', u: 'mailto:x@a.example', d: 'a' }), 'url');
  assert.equal(bad({ n: 'pageview', u: 'https://a.example/' + 'x'.repeat(3000), d: 'a' }), 'url');
  assert.equal(bad({ n: 'pageview', u: 'https://a.example/', d: 7 }), 'domain');
  assert.equal(bad({ n: 'pageview', u: 'https://a.example/', d: 'a', p: 'not json' }), 'props');
  assert.equal(bad({ n: 'engagement', u: 'https://a.example/', d: 'a', e: 'x' }), 'e');
  assert.equal(bad({ n: 'engagement', u: 'https://a.example/', d: 'a', e: 86_400_001 }), 'e');
});

test('the import line of each kind of event passes the importer validation', () => {
  const lines = [
    toImportLine(parsed({ n: 'pageview', u: 'https://a.example/p?q=1', d: 'a', p: { title: 'T' } }), ctx),
    toImportLine(parsed({ n: 'engagement', u: 'https://a.example/p', d: 'a', e: 1200, sd: 50 }), ctx),
    toImportLine(parsed({ n: 'Outbound Link: Click', u: 'https://a.example/p', d: 'a', p: { url: 'https://Other.example/x' } }), ctx),
    toImportLine(parsed({ n: 'File Download', u: 'https://a.example/p', d: 'a', p: { url: 'https://a.example/f.pdf' } }), ctx),
    toImportLine(parsed({ n: 'Form: Submission', u: 'https://a.example/p', d: 'a' }), ctx),
    toImportLine(parsed({ n: '404', u: 'https://a.example/p', d: 'a' }), ctx),
    toImportLine(parsed({ n: 'Custom', u: 'https://a.example/p', d: 'a', i: false, p: { action_id: 'x', other: 'y' } }), ctx),
  ];
  for (const line of lines) {
    const v = validateEventLine(line, { nowMs: ctx.tsMs });
    assert.ok(v.ok, JSON.stringify([line, v]));
  }
  assert.deepEqual(lines[0], {
    ts: '2025-06-15T12:00:00.000Z',
    site_id: 'site_x',
    tenant_id: null,
    url: 'https://a.example/p?q=1',
    referrer: null,
    ip: '198.51.100.1',
    user_agent: 'UA',
    type: 'pageview',
    title: 'T',
  });
  assert.equal(lines[1].type, 'pageview');
  assert.deepEqual([lines[2].action_name, lines[2].action_target_host, lines[2].event_name], ['outbound.click', 'other.example', null]);
  assert.deepEqual([lines[3].action_name, lines[4].action_name, lines[5].action_name], ['file.download', 'form.submit', 'error.404']);
  assert.deepEqual(
    [lines[6].action_name, lines[6].event_name, lines[6].action_id, lines[6].family, lines[6].other],
    ['Custom', 'Custom', 'x', 'instrumentation', undefined],
  );
});

test('the custom properties go on the line, without the props the product maps to columns of its own', () => {
  const props = {
    plan: 'pro',
    title: 'T',
    tenant_id: 't1',
    action_id: 'a',
    form_id: 'f',
    form_action_path: '/x',
    family: 'forms',
    url: 'https://o.example/',
  };
  const pageview = toImportLine(parsed({ n: 'pageview', u: 'https://a.example/', d: 'a', p: props }), ctx);
  assert.deepEqual([pageview.title, pageview.props], ['T', { plan: 'pro', url: 'https://o.example/' }]);
  const custom = toImportLine(parsed({ n: 'Signup', u: 'https://a.example/', d: 'a', p: JSON.stringify(props) }), ctx);
  assert.deepEqual([custom.action_id, custom.props], ['a', { plan: 'pro', url: 'https://o.example/' }]);
  // nothing left, or an engagement (no event): no props at all
  assert.equal('props' in toImportLine(parsed({ n: 'pageview', u: 'https://a.example/', d: 'a', p: { title: 'T' } }), ctx), false);
  assert.equal('props' in toImportLine(parsed({ n: 'engagement', u: 'https://a.example/', d: 'a', e: 5, p: { plan: 'pro' } }), ctx), false);
});

test('with hash routing the fragment (without its own query) is part of the page', () => {
  const line = toImportLine(parsed({ n: 'pageview', u: 'https://a.example/app?utm_source=x#/users/7?tab=1', d: 'a', h: 1 }), ctx);
  assert.equal(line.url, 'https://a.example/app?utm_source=x');
  assert.equal(line.path, '/app%23/users/7');
  const v = validateEventLine(line, { nowMs: ctx.tsMs });
  assert.ok(v.ok);
});
