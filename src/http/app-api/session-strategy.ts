// The dashboard's way into the read routes (/app/api/v1/...): the management API's session cookie, the
// same session check (services/people/sessions.ts) and the same per-session window (one budget for the
// whole of /app/api). The workspace is the one of the site the request names, where the person is a
// member, whatever their role (services/people/dashboard-caller.ts). Not metered; the plan's dashboard
// policy. The session's cookie is sent again when its expiry moved, as the management routes do. The
// query API's twins are POSTs: they carry the session's CSRF token as every POST of /app/api does (a read
// changes nothing, but a page of another origin must not spend the session's budget), from this origin.
import { siteIdOf, type AuthStrategy } from '../pipeline/auth-strategy.js';
import { ApiError } from '../../domain/errors.js';
import { MANAGE_ERROR_CATALOG } from '../../domain/manage-errors.js';
import { dashboardCaller } from '../../services/people/dashboard-caller.js';
import { sessionRateWindow } from '../../services/people/session-rate.js';
import { csrfTokenMatches, resolveSession } from '../../services/people/sessions.js';
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
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const origin = new URL(deps.publicUrl).origin;
        const sent = request.headers['x-csrf-token'];
        if (request.headers.origin !== undefined && request.headers.origin !== origin)
          throw new ApiError('FORBIDDEN', `Requests with a session are accepted from ${origin} only.`);
        if (!(await csrfTokenMatches(deps, session.idHash, typeof sent === 'string' ? sent : undefined)))
          throw new ApiError(
            'FORBIDDEN',
            'Send the X-CSRF-Token header with the csrf_token of your session (GET /app/api/session gives it).',
          );
      }
      if (session.renewed) sendSessionCookie(deps.publicUrl, request, reply, { secret: secret!, expiresAt: session.expiresAt });
      const caller = await dashboardCaller(deps, session.user, siteIdOf(request));
      return { caller, rate: sessionRateWindow(session.idHash) };
    },
  };
}
