// The actions payload (spec "Actions report payload", DESIGN 4 action families). Totals, the daily
// series and families describe every eligible action; action_family / action_key narrow actions[],
// family_timeseries and context. Eligible: the simple actions over the whole range, the others only
// in the actions_advanced window (none on a strict site).
import type { MsWindow } from '../../domain/availability.js';
import { compareKeys } from '../../domain/query/assemble.js';
import { ACTION_FAMILIES, type ActionFamily, type Channel } from '../../domain/events.js';
import { formatActionKey, type ActionIdentity } from './action-key.js';
import { compileActionRows, compileActionTotals, IDENTITY_COLUMNS, type ActionGroupKey, type ActionSelection } from './queries/action-query.js';
import { toInt, toStr } from './queries/report-query-runner.js';
import { dayOf, type PayloadWindow, type ReportKit } from './report-kit.js';

export interface ActionsParams {
  limit: number;
  family: ActionFamily | null;
  action: ActionIdentity | null;
  goalsConfigured: boolean;
}

type Row = Record<string, unknown>;

function identity(r: Row): ActionIdentity {
  const out = {} as Record<string, string | null>;
  for (const c of IDENTITY_COLUMNS) out[c] = toStr(r[c]);
  return out as unknown as ActionIdentity;
}

const bySessions = <T extends { sessions: number }>(key: (x: T) => string | null) => (a: T, b: T) =>
  b.sessions - a.sessions || compareKeys(key(a), key(b));

export async function buildActions(kit: ReportKit, w: PayloadWindow, p: ActionsParams) {
  const range: MsWindow = { startMs: w.days.startMs, endMs: w.days.endMs };
  const all: ActionSelection = { scope: kit.scope, window: range, advanced: w.sections.actions_advanced ?? null };
  const selected: ActionSelection = { ...all, ...(p.family ? { family: p.family } : {}), ...(p.action ? { action: p.action } : {}) };
  const rows = (sel: ActionSelection, group: ActionGroupKey[]) => kit.rows((d) => compileActionRows(d, sel, group));

  const [sessionsTotal, sessionSeries, totalsRow, totalsByDay, families, familyDays, actionRows, actionPages, actionChannels, pages, sources, devices, countries, browsers] =
    await Promise.all([
      kit.total(range, ['sessions']),
      kit.daily(w.days, range, ['sessions']),
      kit.rows((d) => compileActionTotals(d, all, false)),
      kit.rows((d) => compileActionTotals(d, all, true)),
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

  const t = totalsRow[0] ?? {};
  const byDay = new Map(totalsByDay.map((r) => [toInt(r.g_day), r]));

  const familyRows = families
    .map((r) => ({ family: toStr(r.g_family) as ActionFamily, sessions: toInt(r.sessions), occurrences: toInt(r.occurrences) }))
    .filter((r) => r.family !== null)
    .sort(bySessions((r) => r.family));

  // family series: every day of the range for each family the selection has
  const seriesFamilies = [...new Set(familyDays.map((r) => toStr(r.g_family)))].filter((f): f is ActionFamily => f !== null);
  seriesFamilies.sort((a, b) => ACTION_FAMILIES.indexOf(a) - ACTION_FAMILIES.indexOf(b));
  const famDay = new Map(familyDays.map((r) => [`${toInt(r.g_day)}|${toStr(r.g_family)}`, r]));

  // actions: top page by occurrences, top source (channel) by sessions
  const keyOf = (r: Row) => formatActionKey(identity(r));
  const topOf = (list: Row[], group: string, value: 'sessions' | 'occurrences') => {
    const best = new Map<string, { label: string | null; n: number }>();
    for (const r of list) {
      const k = keyOf(r);
      const label = toStr(r[group]);
      const n = toInt(r[value]);
      const cur = best.get(k);
      if (label === null) continue;
      if (!cur || n > cur.n || (n === cur.n && compareKeys(label, cur.label) < 0)) best.set(k, { label, n });
    }
    return best;
  };
  const topPage = topOf(actionPages, 'g_page', 'occurrences');
  const topSource = topOf(actionChannels, 'g_channel', 'sessions');
  const actions = actionRows
    .map((r) => {
      const id = identity(r);
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
        sessions: toInt(r.sessions),
        occurrences: toInt(r.occurrences),
        top_page: topPage.get(key)?.label ?? null,
        top_source: (topSource.get(key)?.label ?? null) as Channel | null,
      };
    })
    .sort(bySessions((r) => r.action_key))
    .slice(0, p.limit);

  const scope = p.action ? ('action' as const) : ('family' as const);
  const context = <T>(list: Row[], col: string, make: (label: string, sessions: number) => T) =>
    list
      .map((r) => ({ label: toStr(r[col]), sessions: toInt(r.sessions) }))
      .filter((r): r is { label: string; sessions: number } => r.label !== null)
      .sort(bySessions((r) => r.label))
      .slice(0, p.limit)
      .map((r) => make(r.label, r.sessions));
  const segment = (kind: 'device' | 'country' | 'browser', list: Row[]) =>
    context(list, `g_${kind}`, (label, sessions) => ({ scope, kind, label, sessions }));

  return {
    goals_configured: p.goalsConfigured,
    active_family: p.family ?? p.action?.family ?? null,
    totals: {
      total_sessions: sessionsTotal.values.sessions,
      meaningful_action_sessions: toInt(t.meaningful_sessions),
      meaningful_occurrences: toInt(t.meaningful_occurrences),
      error_sessions: toInt(t.error_sessions),
      instrumentation_sessions: toInt(t.instrumentation_sessions),
    },
    families: familyRows,
    timeseries: sessionSeries.map((s) => {
      const r = byDay.get(s.bucketMs!) ?? {};
      return {
        date: dayOf(s.bucketMs),
        total_sessions: s.values.sessions,
        meaningful_action_sessions: toInt(r.meaningful_sessions),
        meaningful_occurrences: toInt(r.meaningful_occurrences),
        error_sessions: toInt(r.error_sessions),
        instrumentation_sessions: toInt(r.instrumentation_sessions),
      };
    }),
    family_timeseries: sessionSeries.flatMap((s) =>
      seriesFamilies.map((family) => {
        const r = famDay.get(`${s.bucketMs}|${family}`);
        return { date: dayOf(s.bucketMs), family, sessions: r ? toInt(r.sessions) : 0, occurrences: r ? toInt(r.occurrences) : 0 };
      }),
    ),
    actions,
    context: {
      pages: pages
        .map((r) => ({ scope, path_canon: toStr(r.g_page), sessions: toInt(r.sessions) }))
        .sort(bySessions((r) => r.path_canon))
        .slice(0, p.limit),
      sources: context(sources, 'g_channel', (label, sessions) => ({ scope, channel: label as Channel, sessions })),
      segments: [...segment('device', devices), ...segment('country', countries), ...segment('browser', browsers)],
    },
  };
}
