// The actions report: its parameter rule, its plan (units, cache parameters) and its payload
// (docs/api.md actions report; families: docs/product.md §4.9). Totals, the daily series and families
// describe every eligible action; action_family / action_key narrow actions[], family_timeseries and
// context. Eligible: the simple actions over the whole range, the others only in the actions_advanced
// window (none on a strict site).
import type { MsWindow } from '../../domain/availability.js';
import { compareKeys } from '../../domain/query/assemble.js';
import { ACTION_FAMILIES, type ActionFamily, type Channel } from '../../domain/events.js';
import { formatActionKey, parseActionKey, type ActionIdentity } from '../../domain/action-key.js';
import { reportUnits } from '../../domain/metering.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { ActionGroupKey, ActionRow, ActionSelection, ActionTotals } from '../../ports/analytics-engine.js';
import type { AnalyticsContext, AnalyticsPlan } from '../analytics/serve-analytics.js';
import { dayOf, DEFAULT_REPORT_LIMIT, goalsOf, kitFor, type PayloadWindow, type ReportKit, type ReportParams } from './report-kit.js';

export interface ActionsParams {
  limit: number;
  family: ActionFamily | null;
  action: ActionIdentity | null;
  goalsConfigured: boolean;
}

export type ActionsReport = Awaited<ReturnType<typeof buildActions>>;

/** action_key is parsed when the parameters are checked, so a malformed key is 422 before anything runs. */
export function checkActionKey(key: string | undefined): void {
  if (key !== undefined) parseActionKey(key);
}

export async function actionsPlan(
  ctx: AnalyticsContext,
  q: ReportParams & { action_family?: ActionFamily; action_key?: string },
  range: ResolvedRange,
): Promise<AnalyticsPlan<ActionsReport>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goalsConfigured = (await goalsOf(ctx)).length > 0;
  const action = q.action_key === undefined ? null : parseActionKey(q.action_key);
  const family = q.action_family ?? null;
  return {
    units: reportUnits({ report: 'actions', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goalsConfigured, family, action_key: q.action_key ?? null },
    build: (w) => buildActions(kitFor(w), w, { limit, family, action, goalsConfigured }),
  };
}

const bySessions =
  <T extends { sessions: number }>(key: (x: T) => string | null) =>
  (a: T, b: T) =>
    b.sessions - a.sessions || compareKeys(key(a), key(b));

export async function buildActions(kit: ReportKit, w: PayloadWindow, p: ActionsParams) {
  const range: MsWindow = { startMs: w.days.startMs, endMs: w.days.endMs };
  const all: ActionSelection = { scope: kit.scope, window: range, advanced: w.sections.actions_advanced ?? null };
  const selected: ActionSelection = { ...all, ...(p.family ? { family: p.family } : {}), ...(p.action ? { action: p.action } : {}) };
  const rows = (selection: ActionSelection, groupBy: ActionGroupKey[]) => kit.reads.actionRows({ selection, groupBy });

  const [
    sessionsTotal,
    sessionSeries,
    totalsRow,
    totalsByDay,
    families,
    familyDays,
    actionRows,
    actionPages,
    actionChannels,
    pages,
    sources,
    devices,
    countries,
    browsers,
  ] = await Promise.all([
    kit.total(range, ['sessions']),
    kit.daily(w.days, range, ['sessions']),
    kit.reads.actionTotals({ selection: all, byDay: false }),
    kit.reads.actionTotals({ selection: all, byDay: true }),
    rows(all, ['family']),
    rows(selected, ['day', 'family']),
    rows(selected, ['action']),
    rows(selected, ['action', 'page']),
    rows(selected, ['action', 'channel']),
    rows(selected, ['page']),
    rows(selected, ['channel']),
    rows(selected, ['device']),
    rows(selected, ['country']),
    rows(selected, ['browser']),
  ]);

  const zero: ActionTotals = { meaningfulSessions: 0, meaningfulOccurrences: 0, errorSessions: 0, instrumentationSessions: 0 };
  const t = totalsRow[0] ?? zero;
  const byDay = new Map(totalsByDay.map((r) => [r.day!, r]));

  const familyRows = families
    .filter((r): r is ActionRow & { family: ActionFamily } => r.family != null)
    .map((r) => ({ family: r.family, sessions: r.sessions, occurrences: r.occurrences }))
    .sort(bySessions((r) => r.family));

  // family series: every day of the range for each family the selection has
  const seriesFamilies = [...new Set(familyDays.map((r) => r.family ?? null))].filter((f): f is ActionFamily => f !== null);
  seriesFamilies.sort((a, b) => ACTION_FAMILIES.indexOf(a) - ACTION_FAMILIES.indexOf(b));
  const famDay = new Map(familyDays.map((r) => [`${r.day}|${r.family}`, r]));

  // actions: top page by occurrences, top source (channel) by sessions
  const topOf = (list: ActionRow[], group: 'page' | 'channel', value: 'sessions' | 'occurrences') => {
    const best = new Map<string, { label: string | null; n: number }>();
    for (const r of list) {
      const k = formatActionKey(r.action!);
      const label = r[group] ?? null;
      const n = r[value];
      const cur = best.get(k);
      if (label === null) continue;
      if (!cur || n > cur.n || (n === cur.n && compareKeys(label, cur.label) < 0)) best.set(k, { label, n });
    }
    return best;
  };
  const topPage = topOf(actionPages, 'page', 'occurrences');
  const topSource = topOf(actionChannels, 'channel', 'sessions');
  const actions = actionRows
    .map((r) => {
      const id: ActionIdentity = r.action!;
      const key = formatActionKey(id);
      return {
        action_key: key,
        action_name: id.action_name,
        event_name: id.event_name,
        family: id.family,
        action_id: id.action_id,
        action_target_host: id.action_target_host,
        form_id: id.form_id,
        form_action_path: id.form_action_path,
        sessions: r.sessions,
        occurrences: r.occurrences,
        top_page: topPage.get(key)?.label ?? null,
        top_source: (topSource.get(key)?.label ?? null) as Channel | null,
      };
    })
    .sort(bySessions((r) => r.action_key))
    .slice(0, p.limit);

  const scope = p.action ? ('action' as const) : ('family' as const);
  const context = <T>(list: ActionRow[], col: 'channel' | 'device' | 'country' | 'browser', make: (label: string, sessions: number) => T) =>
    list
      .map((r) => ({ label: r[col] ?? null, sessions: r.sessions }))
      .filter((r): r is { label: string; sessions: number } => r.label !== null)
      .sort(bySessions((r) => r.label))
      .slice(0, p.limit)
      .map((r) => make(r.label, r.sessions));
  const segment = (kind: 'device' | 'country' | 'browser', list: ActionRow[]) =>
    context(list, kind, (label, sessions) => ({ scope, kind, label, sessions }));

  return {
    goals_configured: p.goalsConfigured,
    active_family: p.family ?? p.action?.family ?? null,
    totals: {
      total_sessions: sessionsTotal.values.sessions,
      meaningful_action_sessions: t.meaningfulSessions,
      meaningful_occurrences: t.meaningfulOccurrences,
      error_sessions: t.errorSessions,
      instrumentation_sessions: t.instrumentationSessions,
    },
    families: familyRows,
    timeseries: sessionSeries.map((s) => {
      const r = byDay.get(s.bucketMs!) ?? zero;
      return {
        date: dayOf(s.bucketMs),
        total_sessions: s.values.sessions,
        meaningful_action_sessions: r.meaningfulSessions,
        meaningful_occurrences: r.meaningfulOccurrences,
        error_sessions: r.errorSessions,
        instrumentation_sessions: r.instrumentationSessions,
      };
    }),
    family_timeseries: sessionSeries.flatMap((s) =>
      seriesFamilies.map((family) => {
        const r = famDay.get(`${s.bucketMs}|${family}`);
        return { date: dayOf(s.bucketMs), family, sessions: r?.sessions ?? 0, occurrences: r?.occurrences ?? 0 };
      }),
    ),
    actions,
    context: {
      pages: pages
        .map((r) => ({ scope, path_canon: r.page ?? null, sessions: r.sessions }))
        .sort(bySessions((r) => r.path_canon))
        .slice(0, p.limit),
      sources: context(sources, 'channel', (label, sessions) => ({ scope, channel: label as Channel, sessions })),
      segments: [...segment('device', devices), ...segment('country', countries), ...segment('browser', browsers)],
    },
  };
}
