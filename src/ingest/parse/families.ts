// Action families (docs/product.md §4.9, §8.5).
import { ACTION_FAMILIES, type ActionFamily } from '../../domain/events.js';

export function isActionFamily(v: unknown): v is ActionFamily {
  return typeof v === 'string' && (ACTION_FAMILIES as readonly string[]).includes(v);
}

/**
 * The family of an action: the one sent when there is one, else derived from the name. Names
 * are matched exactly (case-sensitive), as goals match them. Derivation never yields `goals`:
 * that family holds only events sent with `family: "goals"`.
 */
export function familyOf(actionName: string, family?: ActionFamily | null): ActionFamily {
  if (family != null) return family;
  switch (actionName) {
    case 'form.submit':
      return 'forms';
    case 'outbound.click':
      return 'outbound';
    case 'file.download':
      return 'downloads';
    case 'ui.click':
      return 'instrumentation';
  }
  return actionName.startsWith('error.') ? 'errors' : 'custom';
}
