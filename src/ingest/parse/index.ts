// The pure half of event ingestion: parse, validate, enrich, stamp and identify events.
export { parseUserAgent, type ParsedUserAgent } from './user-agent.js';
export { trafficClassOf, AI_AGENT_TOKENS, AI_BOT_TOKENS } from './agent-rules.js';
export { pathCanon, percentDecode, utmOf, hasClickId, referrerHost, normalizeHost, queryParams, type UtmValues } from './url.js';
export { channelOf, isSearchHost, isSocialHost, type ChannelInputs } from './channel.js';
export { familyOf, isActionFamily } from './families.js';
export { parseIsoInstant, utcDayOf } from './timestamp.js';
export { FIELD_LIMITS, MAX_ENGAGEMENT_MS, MAX_FUTURE_MS, type RawEvent } from './raw-event.js';
export { validateEventLine, type ValidateOptions, type ValidationResult } from './validate.js';
export { dailyVisitorKey, dailySalt } from './visitor-key.js';
export { normalizeEvent, profileAt, type NormalizeSite, type NormalizedEvent } from './normalize.js';
export { eventIdentity, assignIdentities, createIdentityAssigner, canonicalContent, IDENTITY_FIELDS } from './identity.js';
export {
  parseAccessLogLine,
  accessLogToRawEvent,
  notPageviewReason,
  NON_PAGE_EXTENSIONS,
  type AccessLogEntry,
  type AccessLogFormat,
  type AccessLogResult,
} from './access-log.js';
