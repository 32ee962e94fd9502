// The hard response budget (spec "Content" rule 5 and Errors): a serialized analytics response
// over 5 MiB is refused with 422 REPORT_RESPONSE_TOO_LARGE, never truncated. The check runs inside
// the metered run, so the reservation is released and the request costs nothing.
import { ApiError } from '../../domain/errors.js';

/** 5 MiB of serialized response (UTF-8 bytes). */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface BudgetFacts {
  /** the content mode, or what stands for it on other routes (docs/decisions/envelope.md) */
  include: string;
  /** inclusive UTC days of the requested range */
  rangeDays: number;
}

/** Throws REPORT_RESPONSE_TOO_LARGE when `measuredBytes` is over `maxBytes`. */
export function checkResponseBudget(measuredBytes: number, facts: BudgetFacts, maxBytes: number = MAX_RESPONSE_BYTES): void {
  if (measuredBytes <= maxBytes) return;
  throw new ApiError(
    'REPORT_RESPONSE_TOO_LARGE',
    `The serialized response would be ${measuredBytes} bytes, over the ${maxBytes}-byte budget. ` +
      'Use the content summary, or reduce the range or the limit.',
    { include: facts.include, range_days: facts.rangeDays, measured_bytes: measuredBytes, max_bytes: maxBytes },
  );
}
