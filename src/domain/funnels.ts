// Funnels (docs/metrics.md "Funnels", docs/decisions/funnels.md): 2 to 8 ordered steps, each a page pattern
// (the goal pattern rules: `*` any run of characters, anchored, case-sensitive, on pageviews' path) or
// an event name (an action whose event_name or action_name equals it). One home for what a step is,
// how it is written (the query body, a saved funnel's JSON, the command line's `page:/pricing`), and
// the per-step numbers of an answer. Pure.
import { invalidParams } from './errors.js';
import { roundHalfUp } from './query-api/query-metrics.js';
import { unstorableReason } from './storable-text.js';

export type FunnelStep = { kind: 'page'; pattern: string } | { kind: 'event'; name: string };

export const MIN_FUNNEL_STEPS = 2;
export const MAX_FUNNEL_STEPS = 8;
/** As a goal's pattern (control/validation.ts MAX_PATTERN). */
export const MAX_STEP_LENGTH = 1000;

const WHAT = 'each step is {"page": "/pricing"} (a page path pattern, * any run of characters) or {"event": "Signup"} (an event name)';

/** The step a JSON value writes, or what is wrong with it (stepsOf names the step by its JSON path). */
export function stepOf(v: unknown): FunnelStep | { problem: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { problem: WHAT };
  const keys = Object.keys(v);
  if (keys.length !== 1 || (keys[0] !== 'page' && keys[0] !== 'event')) return { problem: WHAT };
  const kind = keys[0];
  const text = (v as Record<string, unknown>)[kind];
  if (typeof text !== 'string' || text.length === 0) return { problem: `"${kind}" must be a non-empty string; ${WHAT}` };
  if (text.length > MAX_STEP_LENGTH) return { problem: `"${kind}" is longer than ${MAX_STEP_LENGTH} characters` };
  const bad = unstorableReason(text);
  if (bad) return { problem: `"${kind}" ${bad}` };
  // path_canon always starts with "/": any other page pattern could never match (as a goal's)
  if (kind === 'page' && !/^[/*]/.test(text)) return { problem: 'a page pattern is a path: it must start with "/" (or "*")' };
  return kind === 'page' ? { kind, pattern: text } : { kind, name: text };
}

/**
 * The steps of a funnel, or the first problem with its JSON path. A step equal to the one before is
 * refused: one event may serve two steps that it matches (docs/decisions/funnels.md), so it would say
 * nothing.
 */
export function stepsOf(v: unknown, field = 'steps'): FunnelStep[] | { field: string; problem: string } {
  if (!Array.isArray(v) || v.length < MIN_FUNNEL_STEPS || v.length > MAX_FUNNEL_STEPS)
    return { field, problem: `must be a list of ${MIN_FUNNEL_STEPS} to ${MAX_FUNNEL_STEPS} steps; ${WHAT}` };
  const out: FunnelStep[] = [];
  for (const [i, raw] of v.entries()) {
    const s = stepOf(raw);
    if ('problem' in s) return { field: `${field}[${i}]`, problem: s.problem };
    if (i > 0 && stepLabel(s) === stepLabel(out[i - 1]) && s.kind === out[i - 1].kind)
      return { field: `${field}[${i}]`, problem: 'repeats the step before it: a visit that reaches one reaches both, so leave it out' };
    out.push(s);
  }
  return out;
}

/** The steps of a request body, or a 422 naming the step. */
export function parseSteps(v: unknown, field = 'steps'): FunnelStep[] {
  const r = stepsOf(v, field);
  if ('problem' in r) throw invalidParams(`${r.field}: ${r.problem}`, { field: r.field });
  return r;
}

/** A step as JSON: {"page": pattern} or {"event": name} (the body, saved funnels, the answer's query). */
export function stepJson(s: FunnelStep): { page: string } | { event: string } {
  return s.kind === 'page' ? { page: s.pattern } : { event: s.name };
}

export function stepLabel(s: FunnelStep): string {
  return s.kind === 'page' ? s.pattern : s.name;
}

/** `page:/pricing` or `event:Signup` (the command line's --step), or what is wrong with it. */
export function parseStepFlag(text: string): FunnelStep | { problem: string } {
  const m = /^(page|event):(.*)$/s.exec(text);
  if (!m) return { problem: `--step ${JSON.stringify(text)}: write page:<path pattern> or event:<event name>` };
  const s = stepOf({ [m[1]]: m[2] });
  return 'problem' in s ? { problem: `--step ${JSON.stringify(text)}: ${s.problem}` } : s;
}

export function stepFlag(s: FunnelStep): string {
  return `${s.kind}:${stepLabel(s)}`;
}

/** One step of an answer. */
export interface FunnelStepResult {
  label: string;
  visitors: number;
  /** visitors of this step per visitor of step 1, percent, one decimal half up (0 without any) */
  conversion_rate: number;
  /** visitors lost since the step before (0 at step 1) */
  dropoff: number;
  /** the dropoff per visitor of the step before, percent, one decimal half up (0 at step 1) */
  dropoff_rate: number;
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : roundHalfUp((part * 100) / whole, 1));

/** The answer's steps from the visitors of each (the engines' funnelSteps). */
export function funnelResults(steps: readonly FunnelStep[], visitors: readonly number[]): FunnelStepResult[] {
  if (visitors.length !== steps.length) throw new RangeError(`${visitors.length} counts for ${steps.length} steps`);
  return steps.map((s, k) => {
    const before = k === 0 ? visitors[0] : visitors[k - 1];
    const dropoff = before - visitors[k];
    return {
      label: stepLabel(s),
      visitors: visitors[k],
      conversion_rate: percent(visitors[k], visitors[0]),
      dropoff,
      dropoff_rate: percent(dropoff, before),
    };
  });
}
