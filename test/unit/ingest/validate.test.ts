import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateEventLine, type ValidateOptions } from '../../../src/ingest/parse/validate.js';

const NOW = Date.UTC(2024, 4, 1, 12);
const opts: ValidateOptions = { nowMs: NOW };
const base = { ts: '2024-05-01T11:00:00Z', type: 'pageview', site_id: 'site_1', path: '/a', visitor_key: 'k1' };

function reason(line: Record<string, unknown>, o: ValidateOptions = opts): string {
  const r = validateEventLine(line, o);
  assert.equal(r.ok, false, `expected a rejection of ${JSON.stringify(line)}`);
  return (r as { reason: string }).reason;
}
function accept(line: Record<string, unknown>, o: ValidateOptions = opts) {
  const r = validateEventLine(line, o);
  if (!r.ok) assert.fail(`rejected: ${r.reason}`);
  return r.event;
}

test('a minimal pageview is accepted with defaults', () => {
  const ev = accept(base);
  assert.equal(ev.ts_ms, Date.UTC(2024, 4, 1, 11));
  assert.equal(ev.type, 'pageview');
  assert.equal(ev.site_id, 'site_1');
  assert.equal(ev.engagement_time_ms, 0);
  assert.equal(ev.traffic_class, null);
  assert.equal(ev.tenant_id, null);
});

test('non-objects are rejected', () => {
  for (const v of [null, 1, 'x', [base], true]) {
    const r = validateEventLine(v, opts);
    assert.deepEqual(r, { ok: false, reason: 'line is not a JSON object' });
  }
});

test('ts is required and must be a strict ISO instant', () => {
  assert.match(reason({ ...base, ts: undefined }), /^ts is required/);
  assert.match(reason({ ...base, ts: 1714560000000 }), /^ts must be a string/);
  assert.match(reason({ ...base, ts: '2024-02-30T00:00:00Z' }), /^ts must be an ISO 8601 instant/);
  assert.match(reason({ ...base, ts: '2024-05-01T11:00:00' }), /^ts must be an ISO 8601 instant/);
});

test('more than 5 minutes in the future is rejected; exactly 5 is accepted', () => {
  accept({ ...base, ts: '2024-05-01T12:05:00Z' });
  assert.equal(reason({ ...base, ts: '2024-05-01T12:05:00.001Z' }), 'ts is more than 5 minutes in the future');
  assert.equal(reason({ ...base, ts: '2024-05-01T14:05:01+02:00' }), 'ts is more than 5 minutes in the future');
});

test('type must be pageview or action', () => {
  assert.equal(reason({ ...base, type: undefined }), 'type is required');
  assert.equal(reason({ ...base, type: 'click' }), 'type must be pageview or action');
  assert.equal(reason({ ...base, type: 'Pageview' }), 'type must be pageview or action');
});

test('site_id comes from the line or from --site, and they must agree', () => {
  assert.equal(reason({ ...base, site_id: undefined }), 'site_id is required (or pass --site)');
  assert.equal(accept({ ...base, site_id: undefined }, { nowMs: NOW, defaultSiteId: 's9' }).site_id, 's9');
  assert.equal(accept({ ...base, site_id: 's9' }, { nowMs: NOW, defaultSiteId: 's9' }).site_id, 's9');
  assert.equal(reason({ ...base, site_id: 'other' }, { nowMs: NOW, defaultSiteId: 's9' }), 'site_id differs from --site');
  assert.equal(reason({ ...base, site_id: 12 }), 'site_id must be a string');
});

test('pageviews need url or path; actions do not', () => {
  assert.equal(reason({ ...base, path: undefined }), 'url or path is required for a pageview');
  assert.equal(reason({ ...base, path: '' }), 'url or path is required for a pageview');
  accept({ ...base, path: undefined, url: 'https://example.com/a?b=1' });
  accept({ ...base, path: undefined, type: 'action', action_name: 'signup' });
  assert.equal(reason({ ...base, path: 'about' }), 'path must start with /');
  assert.equal(reason({ ...base, path: undefined, url: 'example.com/a' }), 'url must be an absolute http(s) URL or a path starting with /');
  assert.equal(
    reason({ ...base, path: undefined, url: 'javascript:alert(1)' }),
    'url must be an absolute http(s) URL or a path starting with /',
  );
});

test('visitor_key, or ip and user_agent, is required', () => {
  assert.equal(reason({ ...base, visitor_key: undefined }), 'visitor_key, or ip and user_agent, is required');
  assert.equal(reason({ ...base, visitor_key: undefined, ip: '1.2.3.4' }), 'user_agent is required with ip when there is no visitor_key');
  assert.equal(
    reason({ ...base, visitor_key: undefined, user_agent: 'Mozilla/5.0' }),
    'ip is required with user_agent when there is no visitor_key',
  );
  const ev = accept({ ...base, visitor_key: undefined, ip: '1.2.3.4', user_agent: 'Mozilla/5.0' });
  assert.equal(ev.ip, '1.2.3.4');
  // an empty user agent (access logs' "-") still derives a key
  assert.equal(accept({ ...base, visitor_key: undefined, ip: '1.2.3.4', user_agent: '' }).user_agent, '');
  assert.equal(reason({ ...base, user_agent: 5 }), 'user_agent must be a string');
});

test('enums are checked', () => {
  assert.equal(accept({ ...base, device_type: 'tablet' }).device_type, 'tablet');
  assert.equal(reason({ ...base, device_type: 'phone' }), 'device_type must be one of desktop, mobile, tablet, other');
  assert.equal(accept({ ...base, traffic_class: 'ai_agent' }).traffic_class, 'ai_agent');
  assert.equal(reason({ ...base, traffic_class: 'robot' }), 'traffic_class must be one of human, ai_agent, bot, ai_bot');
  assert.equal(accept({ ...base, country: 'DE' }).country, 'DE');
  for (const c of ['de', 'DEU', 'D', 'D1']) assert.match(reason({ ...base, country: c }), /^country must be an ISO 3166-1 alpha-2 code/);
  assert.match(reason({ ...base, type: 'action', action_name: 'x', family: 'goal' }), /^family must be one of goals,/);
});

test('engagement_time_ms is a non-negative integer of at most a day', () => {
  assert.equal(accept({ ...base, engagement_time_ms: 12_500 }).engagement_time_ms, 12_500);
  assert.equal(accept({ ...base, engagement_time_ms: null }).engagement_time_ms, 0);
  for (const v of [-1, 1.5, '100', Number.NaN]) {
    assert.equal(reason({ ...base, engagement_time_ms: v }), 'engagement_time_ms must be a non-negative integer');
  }
  assert.match(reason({ ...base, engagement_time_ms: 86_400_001 }), /^engagement_time_ms is over 86400000/);
});

test('actions need action_name; action fields on pageviews are ignored', () => {
  assert.equal(reason({ ...base, type: 'action' }), 'action_name is required for an action');
  const act = accept({ ...base, type: 'action', action_name: 'form.submit', form_id: 'f1', family: 'goals' });
  assert.equal(act.action_name, 'form.submit');
  assert.equal(act.form_id, 'f1');
  assert.equal(act.family, 'goals');
  const pv = accept({ ...base, action_name: 'form.submit', form_id: 'f1', family: 'goals' });
  assert.equal(pv.action_name, null);
  assert.equal(pv.form_id, null);
  assert.equal(pv.family, null);
});

test('string fields are bounded, typed and valid text', () => {
  assert.equal(reason({ ...base, title: 'x'.repeat(1025) }), 'title is longer than 1024 characters');
  accept({ ...base, title: 'x'.repeat(1024) });
  assert.equal(reason({ ...base, url: 'https://e.com/' + 'a'.repeat(8200) }), 'url is longer than 8192 characters');
  assert.equal(reason({ ...base, path: '/' + 'a'.repeat(2048) }), 'path is longer than 2048 characters once decoded');
  assert.equal(
    reason({ ...base, path: undefined, url: 'https://e.com/' + 'a'.repeat(2048) }),
    "url's path is longer than 2048 characters once decoded",
  );
  // the limit is on the decoded path: 2047 escaped characters fit
  accept({ ...base, path: '/' + '%C3%A9'.repeat(1000) });
  assert.equal(reason({ ...base, visitor_key: 'k'.repeat(129) }), 'visitor_key is longer than 128 characters');
  assert.equal(reason({ ...base, title: 42 }), 'title must be a string');
  assert.equal(reason({ ...base, title: 'a\u0000b' }), 'title contains a NUL character');
  assert.equal(reason({ ...base, title: 'a\uD800b' }), 'title is not valid Unicode text');
  accept({ ...base, title: 'emoji 😀' });
});

test('null and empty optional fields are absent; unknown fields are ignored', () => {
  const ev = accept({ ...base, title: '', referrer: null, utm_source: '  ', whatever: { deep: true }, screen: 1080 });
  assert.equal(ev.title, null);
  assert.equal(ev.referrer, null);
  assert.equal(ev.utm_source, null);
  assert.equal('whatever' in ev, false);
});

test('every problem of a line is reported at once, in the order of the format', () => {
  assert.equal(
    reason({ ts: 'yesterday', type: 'click', site_id: 7, path: 'about', title: 42, country: 'de', engagement_time_ms: -1 }),
    'ts must be an ISO 8601 instant with Z or an offset, e.g. 2024-05-01T12:00:00Z; type must be pageview or action; site_id must be a string; ' +
      'path must start with /; visitor_key, or ip and user_agent, is required; country must be an ISO 3166-1 alpha-2 code in upper case, e.g. US; ' +
      'title must be a string; engagement_time_ms must be a non-negative integer',
  );
  // a field at fault is named once: a malformed url is not also a missing one
  assert.equal(
    reason({ ...base, path: undefined, url: 'example.com/a', visitor_key: 'k'.repeat(129) }),
    'url must be an absolute http(s) URL or a path starting with /; visitor_key is longer than 128 characters',
  );
  assert.equal(
    reason({ ...base, type: 'action', action_name: '  ', family: 'goal' }),
    'action_name is required for an action; family must be one of goals, forms, outbound, downloads, errors, custom, instrumentation',
  );
});

test("a line of another format (Plausible's events) is told every missing field, and which name footfall reads", () => {
  const plausible = {
    name: 'pageview',
    url: 'https://shop.example/pricing',
    domain: 'shop.example',
    timestamp: '2024-05-01T11:00:00Z',
    referrer: null,
    props: {},
  };
  assert.equal(
    reason(plausible),
    'ts is required (this line has "timestamp"; footfall reads "ts"); type is required (this line has "name"; footfall reads "type"); ' +
      'site_id is required (or pass --site) (this line has "domain"; footfall reads "site_id"); visitor_key, or ip and user_agent, is required',
  );
  assert.equal(
    reason({ ...base, visitor_key: undefined, ua: 'Mozilla/5.0', ip: '1.2.3.4' }),
    'user_agent is required with ip when there is no visitor_key (this line has "ua"; footfall reads "user_agent")',
  );
});

test('props: an object of at most 30 scalar values, sorted into two arrays; anything else is refused', () => {
  assert.deepEqual(
    (({ prop_keys, prop_values }) => ({ prop_keys, prop_values }))(
      accept({ ...base, props: { plan: 'pro', n: 3, ok: true, x: null, b: 'é' } }),
    ),
    { prop_keys: ['b', 'n', 'ok', 'plan'], prop_values: ['é', '3', 'true', 'pro'] },
  );
  for (const none of [undefined, null, {}, { x: null }]) {
    const ev = accept({ ...base, props: none });
    assert.deepEqual([ev.prop_keys, ev.prop_values], [[], []]);
  }
  const many = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, 'v']));
  assert.equal(reason({ ...base, props: many }), 'props has more than 30 keys');
  assert.equal(accept({ ...base, props: Object.fromEntries(Object.entries(many).slice(1)) }).prop_keys.length, 30);
  assert.equal(reason({ ...base, props: { ['k'.repeat(301)]: 'v' } }), 'a props key must be 1 to 300 characters');
  assert.equal(reason({ ...base, props: { '': 'v' } }), 'a props key must be 1 to 300 characters');
  assert.equal(accept({ ...base, props: { ['k'.repeat(300)]: 'v'.repeat(2000) } }).prop_values[0].length, 2000);
  assert.equal(reason({ ...base, props: { k: 'v'.repeat(2001) } }), 'props.k is longer than 2000 characters');
  assert.equal(reason({ ...base, props: { k: { deep: 1 } } }), 'props.k must be a string, a number or a boolean');
  assert.equal(reason({ ...base, props: { k: [1] } }), 'props.k must be a string, a number or a boolean');
  for (const bad of ['{"a":1}', ['a'], 7]) assert.equal(reason({ ...base, props: bad }), 'props must be an object');
  assert.equal(reason({ ...base, props: { k: 'a\u0000b' } }), 'props.k contains a NUL character');
  assert.equal(reason({ ...base, props: { 'a\uD800': 'v' } }), 'a props key is not valid Unicode text');
  // `__proto__` is a key like any other
  assert.deepEqual(accept({ ...base, props: JSON.parse('{"__proto__":"x"}') }).prop_keys, ['__proto__']);
});
