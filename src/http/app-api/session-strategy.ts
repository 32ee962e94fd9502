// The dashboard's way into the read routes (/app/api/v1/...): the management API's session cookie, the
// same session check (services/people/sessions.ts) and the same per-session window (one budget for the
// whole of /app/api). The workspace is the one of the site the request names, where the person is a
// member, whatever their role (services/people/dashboard-caller.ts). Not metered; the plan's dashboard
// policy. The session's cookie is sent again when its expiry moved, as the management routes do.
import { siteIdOf, type AuthStrategy } from '../pipeline/auth-strategy.js';
import { ApiError } from '../../domain/errors.js';
import { MANAGE_ERROR_CATALOG } from '../../domain/manage-errors.js';
import { dashboardCaller } from '../../services/people/dashboard-caller.js';
import { sessionRateWindow } from '../../services/people/session-rate.js';
import { resolveSession } from '../../services/people/sessions.js';
import type { AppApiDeps } from './app-api-deps.js';
import { clearSessionCookie, sendSessionCookie, SESSION_COOKIE } from './session-cookie.js';

export function sessionStrategy(deps: AppApiDeps): AuthStrategy {
  return {
    name: 'session',
    security: [{ sessionCookie: [] }],
    async admit(request, reply) {
      const secret = request.cookies?.[SESSION_COOKIE];
      const session = await resolveSession(deps, secret);
      if (!session) {
        if (secret !== undefined) clearSessionCookie(deps.publicUrl, request, reply);
        throw new ApiError('UNAUTHORIZED', MANAGE_ERROR_CATALOG.UNAUTHORIZED.message);
      }
      if (session.renewed) sendSessionCookie(deps.publicUrl, request, reply, { secret: secret!, expiresAt: session.expiresAt });
      const caller = await dashboardCaller(deps, session.user, siteIdOf(request));
      return { caller, rate: sessionRateWindow(session.idHash) };
    },
  };
}
