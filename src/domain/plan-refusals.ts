// What a 403 says when the plan, not the token, closes something (docs/product.md §7.1): which plan
// decided, and what would open it, derived from the plans' own policies so that it stays true when
// they change. Pure.
import { FAMILY_SWITCHES, type PolicySwitch, type RouteFamily } from './access.js';
import { apiPolicyFor, hasApiAccess, PLAN_IDS, type ApiPolicy, type PlanId } from './plans.js';

/** How messages name what each switch opens. */
const OPENS: Record<PolicySwitch, string> = {
  allow_reports: 'the reports endpoints',
  allow_goals: 'the goals endpoints',
  allow_tenants: 'the tenants endpoints',
  allow_tenant_dimension: 'the tenant dimension (dimension=tenant)',
};

/** The plans above `plan` (PLAN_IDS runs cheapest first), enterprise aside, whose own policy passes `opens`. */
function upgradesThat(opens: (policy: ApiPolicy) => boolean, plan: PlanId): PlanId[] {
  return PLAN_IDS.filter((p, i) => p !== 'enterprise' && i > PLAN_IDS.indexOf(plan) && opens(apiPolicyFor(p)));
}

function upgrade(plans: PlanId[], enterprise: string): string {
  return plans.length ? `upgrade to ${plans.join(' or ')}${plans.length > 1 ? ',' : ''} or ask for ${enterprise}` : `ask for ${enterprise}`;
}

/** The 403 of a part of the API the workspace's policy switches off. */
export function switchRefusal(plan: PlanId, flag: PolicySwitch): string {
  if (plan === 'enterprise')
    return `This workspace's enterprise API policy does not include ${OPENS[flag]}: ${flag} is false; ask for a policy with ${flag}.`;
  return `The ${plan} plan does not include ${OPENS[flag]}; ${upgrade(
    upgradesThat((p) => p[flag], plan),
    `an enterprise policy with ${flag}`,
  )}.`;
}

/** The 403 of a route family the policy does not open (a family without a switch is open to any plan with API access). */
export function familyRefusal(plan: PlanId, family: RouteFamily): string {
  const flag = FAMILY_SWITCHES[family];
  return flag ? switchRefusal(plan, flag) : apiAccessRefusal(plan);
}

/** The 403 of any request on a plan without API access. */
export function apiAccessRefusal(plan: PlanId): string {
  if (plan === 'enterprise')
    return "This workspace's enterprise API policy gives no API access (availability is none); ask for a policy with API access.";
  return `The ${plan} plan does not include API access; ${upgrade(upgradesThat(hasApiAccess, plan), 'an enterprise policy')}.`;
}
