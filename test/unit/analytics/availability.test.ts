import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  availabilityRefuses,
  buildAvailability,
  classifyRoute,
  metricsRoute,
  type AvailabilityInput,
} from '../../../src/domain/availability.js';

const ms = (s: string) => Date.parse(s);
const MAR = { startMs: ms('2025-03-01T00:00:00.000Z'), endMs: ms('2025-03-07T23:59:59.999Z') };
const FEB = { startMs: ms('2025-02-22T00:00:00.000Z'), endMs: ms('2025-02-28T23:59:59.999Z') };
const MID_MARCH_4 = '2025-03-04T12:00:00.000Z';

const input = (over: Partial<AvailabilityInput>): AvailabilityInput => ({
  route: 'breakdown',
  dimensions: [],
  profile: 'extended',
  effectiveAt: null,
  current: MAR,
  compare: null,
  firstEventAtMs: ms('2024-01-01T00:00:00Z'),
  ...over,
});

test('routes are classified as docs/product.md §4.8 says', () => {
  assert.equal(classifyRoute('overview'), 'mixed');
  assert.equal(classifyRoute('acquisition'), 'mixed');
  assert.equal(classifyRoute('actions'), 'mixed');
  assert.equal(classifyRoute('content'), 'strict_safe');
  assert.equal(classifyRoute('goals'), 'extended_only');
  assert.equal(classifyRoute('timeseries', []), 'strict_safe');
  assert.equal(classifyRoute('breakdown', ['page', 'country', 'tenant']), 'strict_safe');
  for (const d of ['source', 'medium', 'campaign', 'region', 'city'])
    assert.equal(classifyRoute('breakdown_tenant', ['page', d]), 'extended_only');
  assert.equal(metricsRoute('breakdown', { dimension: 'tenant', tenantScoped: false }), 'breakdown_tenant');
  assert.equal(metricsRoute('timeseries', { tenantScoped: true }), 'timeseries_tenant');
  assert.equal(metricsRoute('timeseries', { tenantScoped: false }), 'timeseries');
});

test('strict-safe metrics on a strict site: available for the whole range', () => {
  const d = buildAvailability(input({ profile: 'strict', dimensions: ['country'] }));
  assert.equal(d.error, null);
  assert.deepEqual(d.availability.current, {
    status: 'available',
    reason: 'strict_safe_route',
    requestedStart: '2025-03-01T00:00:00.000Z',
    requestedEnd: '2025-03-07T23:59:59.999Z',
    compatibleStart: '2025-03-01T00:00:00.000Z',
    compatibleEnd: '2025-03-07T23:59:59.999Z',
  });
  assert.deepEqual(d.count.current, MAR);
  assert.deepEqual(d.availability.sections, []);
  assert.equal(d.availability.readModel, undefined);
});

test('extended-only on a strict site: 409 REPORT_LOCKED_BY_PROFILE with the availability in details', () => {
  const d = buildAvailability(input({ profile: 'strict', dimensions: ['source'], compare: FEB }));
  assert.equal(d.error?.code, 'REPORT_LOCKED_BY_PROFILE');
  assert.equal(d.error?.status, 409);
  assert.deepEqual(Object.keys(d.error!.details!), ['route', 'classification', 'currentProfile', 'availability']);
  assert.equal(d.error?.details?.classification, 'extended_only');
  assert.equal(d.availability.current.status, 'locked_by_profile');
  assert.equal(d.availability.current.reason, 'extended_data_required');
  assert.equal(d.availability.current.compatibleStart, null);
  assert.equal(d.availability.compare?.status, 'locked_by_profile');
  assert.deepEqual(d.count, { current: null, compare: null });
});

test('a strict site that was extended before effective_at stays locked even for a period before it', () => {
  const d = buildAvailability(input({ profile: 'strict', effectiveAt: '2025-06-01T00:00:00Z', dimensions: ['city'] }));
  assert.equal(d.error?.code, 'REPORT_LOCKED_BY_PROFILE');
  assert.equal(d.availability.collectionProfileEffectiveAt, '2025-06-01T00:00:00.000Z');
});

test('extended-only wholly before effective_at: 409 REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD', () => {
  const d = buildAvailability(input({ route: 'goals', effectiveAt: '2025-03-08T00:00:00Z' }));
  assert.equal(d.error?.code, 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD');
  assert.equal(d.availability.current.status, 'not_available_for_requested_period');
  assert.equal(d.availability.current.reason, 'requested_period_has_no_extended_data');
  assert.equal(d.count.current, null);
});

test('extended-only crossing effective_at: 200, partial, counting only [effective_at, end]', () => {
  const d = buildAvailability(input({ dimensions: ['region'], effectiveAt: MID_MARCH_4, compare: FEB }));
  assert.equal(d.error, null);
  assert.equal(d.availability.current.status, 'partially_available_after_effective_at');
  assert.equal(d.availability.current.reason, 'requested_period_crosses_profile_change');
  assert.equal(d.availability.current.compatibleStart, MID_MARCH_4);
  assert.equal(d.availability.current.compatibleEnd, '2025-03-07T23:59:59.999Z');
  assert.deepEqual(d.count.current, { startMs: ms(MID_MARCH_4), endMs: MAR.endMs });
  // the compare window lies wholly before: reported, counted as nothing, no 409
  assert.equal(d.availability.compare?.status, 'not_available_for_requested_period');
  assert.equal(d.count.compare, null);
});

test('effective_at exactly at the range start is available: extended windows start at the instant itself', () => {
  const d = buildAvailability(input({ route: 'goals', effectiveAt: '2025-03-01T00:00:00.000Z' }));
  assert.equal(d.availability.current.status, 'available');
  assert.equal(d.availability.current.reason, null);
  const last = buildAvailability(input({ route: 'goals', effectiveAt: '2025-03-07T23:59:59.999Z' }));
  assert.equal(last.availability.current.status, 'partially_available_after_effective_at');
  const after = buildAvailability(input({ route: 'goals', effectiveAt: '2025-03-08T00:00:00.000Z' }));
  assert.equal(after.error?.code, 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD');
});

test('mixed routes stay 200 on strict sites with locked sections and a read model', () => {
  const d = buildAvailability(input({ route: 'overview', profile: 'strict', compare: FEB }));
  assert.equal(d.error, null);
  assert.equal(d.availability.classification, 'mixed');
  assert.equal(d.availability.current.status, 'available');
  assert.deepEqual(d.count.current, MAR);
  assert.deepEqual(
    d.availability.sections.map((s) => [s.id, s.classification, s.current.status, s.current.reason, s.compare?.status]),
    [
      ['overview_regions', 'extended_only', 'locked_by_profile', 'extended_data_required', 'locked_by_profile'],
      ['overview_cities', 'extended_only', 'locked_by_profile', 'extended_data_required', 'locked_by_profile'],
    ],
  );
  assert.deepEqual(d.sectionCount.overview_regions, { current: null, compare: null });
  assert.deepEqual(d.availability.readModel, { strictSafe: ['overview_core', 'acquisition_lite'], extended: ['overview_geography'] });
});

test('mixed route sections on a site that switched to extended mid-range count only their compatible window', () => {
  const acq = buildAvailability(input({ route: 'acquisition', effectiveAt: MID_MARCH_4 }));
  assert.equal(acq.availability.current.status, 'available');
  assert.deepEqual(acq.count.current, MAR);
  assert.equal(acq.availability.sections[0].id, 'acquisition_attribution');
  assert.equal(acq.availability.sections[0].current.status, 'partially_available_after_effective_at');
  assert.deepEqual(acq.sectionCount.acquisition_attribution?.current, { startMs: ms(MID_MARCH_4), endMs: MAR.endMs });
  const actions = buildAvailability(input({ route: 'actions', effectiveAt: '2025-04-01T00:00:00Z' }));
  assert.equal(actions.error, null);
  assert.equal(actions.availability.sections[0].id, 'actions_advanced');
  assert.equal(actions.availability.sections[0].current.status, 'not_available_for_requested_period');
  assert.deepEqual(actions.availability.readModel, { strictSafe: ['actions_simple'], extended: ['actions_advanced'] });
});

test('content on any site is strict-safe: no sections, never 409', () => {
  const d = buildAvailability(input({ route: 'content', profile: 'strict', effectiveAt: MID_MARCH_4 }));
  assert.equal(d.error, null);
  assert.equal(d.availability.classification, 'strict_safe');
  assert.equal(d.availability.current.reason, 'strict_safe_route');
});

test('a range starting before the first event is partially available outside source coverage', () => {
  const first = ms('2025-03-03T08:00:00Z');
  const d = buildAvailability(input({ firstEventAtMs: first, compare: FEB }));
  assert.equal(d.availability.current.status, 'partially_available_outside_source_coverage');
  assert.equal(d.availability.current.reason, 'outside_source_coverage');
  assert.equal(d.availability.current.compatibleStart, '2025-03-03T08:00:00.000Z');
  assert.deepEqual(d.count.current, MAR);
  assert.equal(d.availability.compare?.status, 'partially_available_outside_source_coverage');
  assert.equal(d.availability.compare?.compatibleStart, null);
  assert.equal(d.error, null);
});

test('a site without data is reported available (coverage unknown), a range after the first event too', () => {
  assert.equal(buildAvailability(input({ firstEventAtMs: null })).availability.current.status, 'available');
  assert.equal(buildAvailability(input({ firstEventAtMs: MAR.startMs })).availability.current.status, 'available');
});

test('the profile change takes precedence over source coverage on extended-only routes', () => {
  const d = buildAvailability(input({ route: 'goals', effectiveAt: MID_MARCH_4, firstEventAtMs: ms('2025-03-06T00:00:00Z') }));
  assert.equal(d.availability.current.status, 'partially_available_after_effective_at');
});

test('an unparsable effective_at is a data fault, not a silent default', () => {
  assert.throws(() => buildAvailability(input({ effectiveAt: 'yesterday' })), RangeError);
});

test('availabilityRefuses says exactly when buildAvailability answers 409, whatever the route, profile, change and coverage', () => {
  const routes = ['overview', 'acquisition', 'actions', 'content', 'goals', 'timeseries', 'breakdown', 'breakdown_tenant'] as const;
  let refused = 0;
  for (const route of routes)
    for (const dimensions of [[], ['page'], ['source']])
      for (const profile of ['strict', 'extended'] as const)
        for (const effectiveAt of [null, '2025-02-01T00:00:00.000Z', MID_MARCH_4, '2025-04-01T00:00:00.000Z'])
          for (const firstEventAtMs of [null, ms('2024-01-01T00:00:00Z'), ms(MID_MARCH_4), ms('2025-05-01T00:00:00Z')])
            for (const compare of [null, FEB]) {
              const i = input({ route, dimensions, profile, effectiveAt, firstEventAtMs, compare });
              const error = buildAvailability(i).error;
              assert.equal(availabilityRefuses(i), error !== null, JSON.stringify(i));
              if (error) refused++;
            }
  assert.ok(refused > 0, 'the table holds refusals');
});
