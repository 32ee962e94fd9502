// Two-factor sign-in: the second step of signing in (public: the challenge is the credential), and the
// signed-in person's own two-factor settings (session and CSRF token like every other change). Secrets
// and codes travel in bodies only, never in a URL, so no request log line holds one.
import { Type } from '@sinclair/typebox';
import { TOTP_DIGITS, TOTP_STEP_SECONDS } from '../../../domain/two-factor.js';
import { finishSecondStep } from '../../../services/people/second-step.js';
import {
  beginTwoFactor,
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from '../../../services/people/two-factor.js';
import { defineAppRoute } from '../define-app-route.js';
import { Password, SessionSchema } from '../schemas.js';
import { establishSession } from './establish-session.js';

const TAG = 'Session';

const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  description: `The ${TOTP_DIGITS}-digit code the authenticator app shows now, or an unused recovery code (spaces and dashes are ignored)`,
});
const Proof = Type.Object({ password: Password, code: Code }, { additionalProperties: false });

const StatusSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused recovery codes (0 while off)' }),
  },
  { title: 'TwoFactorStatus', additionalProperties: false },
);
const SetupSchema = Type.Object(
  {
    secret: Type.String({ description: 'base32, 160 bits: to type into an app that cannot scan the QR code' }),
    otpauth_uri: Type.String({ description: `otpauth://totp/…: SHA-1, ${TOTP_DIGITS} digits, ${TOTP_STEP_SECONDS} seconds` }),
    qr: Type.Object(
      {
        size: Type.Integer({ description: 'The side in modules, quiet zone included: the viewBox is 0 0 size size' }),
        path: Type.String({ description: 'An SVG path of the dark modules of the QR code of otpauth_uri' }),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'TwoFactorSetup', additionalProperties: false },
);
const RecoveryCodesSchema = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'Each works once; shown only in this answer' }) },
  { title: 'RecoveryCodes', additionalProperties: false },
);

const CODE_THROTTLE =
  'Every code typed counts in the sign-in throttle: 10 wrong ones for an account from one client address, or 20 from anywhere, in 15 minutes, and 429 until the window frees a slot.';

export const twoFactorRoutes = [
  defineAppRoute({
    method: 'POST',
    url: '/session/second-step',
    operationId: 'signInSecondStep',
    summary: 'Finish signing in with a code from the authenticator app, or a recovery code',
    description: `The challenge POST /session answered (open five minutes, used once) and a code: a current code (each is accepted once), or an unused recovery code (each works once). Sets the session cookie. A wrong code is 401 INVALID_CODE and the challenge stays open; an unknown, spent or expired challenge is 401 UNAUTHORIZED (sign in again). ${CODE_THROTTLE}`,
    tag: TAG,
    auth: 'public',
    body: Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 200 }), code: Code }, { additionalProperties: false }),
    status: 200,
    response: SessionSchema,
    errors: [401, 429],
    handler: async (ctx) =>
      establishSession(
        ctx,
        await finishSecondStep(ctx.deps, { challenge: ctx.body.challenge, code: ctx.body.code, clientAddress: ctx.request.ip }),
      ),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/session/two-factor',
    operationId: 'getTwoFactor',
    summary: 'Whether two-factor sign-in is on, and how many recovery codes are left',
    tag: TAG,
    auth: 'session',
    status: 200,
    response: StatusSchema,
    handler: async ({ deps, session }) => {
      const s = await twoFactorStatus(deps, session.user);
      return { enabled: s.enabled, recovery_codes_left: s.recoveryCodesLeft };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/two-factor/setup',
    operationId: 'setUpTwoFactor',
    summary: 'A new secret for an authenticator app (not on until confirmed)',
    description:
      'The secret as text and as a QR code of its otpauth:// URI. Nothing changes for signing in until POST /session/two-factor/enable confirms a code of it; asking again replaces a secret not confirmed. 409 when it is on already, or the account has no password yet.',
    tag: TAG,
    auth: 'session',
    status: 200,
    response: SetupSchema,
    errors: [409],
    handler: async ({ deps, session }) => {
      const s = await beginTwoFactor(deps, session.user);
      return { secret: s.secret, otpauth_uri: s.uri, qr: s.qr };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/two-factor/enable',
    operationId: 'enableTwoFactor',
    summary: 'Turn two-factor sign-in on: the password and a current code of the new secret',
    description: `Answers 10 recovery codes, shown this once. Every other session of the person ends; this one goes on. A wrong password is 401 INVALID_CREDENTIALS, a wrong code 401 INVALID_CODE; 409 without a secret from /setup. ${CODE_THROTTLE}`,
    tag: TAG,
    auth: 'session',
    body: Proof,
    status: 200,
    response: RecoveryCodesSchema,
    errors: [401, 409, 429],
    handler: async ({ deps, session, body, request }) => ({
      recovery_codes: await enableTwoFactor(deps, session.user, session.idHash, { ...body, clientAddress: request.ip }),
    }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/two-factor/recovery-codes',
    operationId: 'regenerateRecoveryCodes',
    summary: 'New recovery codes: the password and a code; the earlier ones stop working',
    description: `Answers 10 recovery codes, shown this once. 409 when two-factor sign-in is off. ${CODE_THROTTLE}`,
    tag: TAG,
    auth: 'session',
    body: Proof,
    status: 200,
    response: RecoveryCodesSchema,
    errors: [401, 409, 429],
    handler: async ({ deps, session, body, request }) => ({
      recovery_codes: await regenerateRecoveryCodes(deps, session.user, { ...body, clientAddress: request.ip }),
    }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/two-factor/disable',
    operationId: 'disableTwoFactor',
    summary: 'Turn two-factor sign-in off: the password and a code (or a recovery code)',
    description: `The secret and the recovery codes are deleted. 409 when it is off. ${CODE_THROTTLE}`,
    tag: TAG,
    auth: 'session',
    body: Proof,
    status: 204,
    errors: [401, 409, 429],
    handler: async ({ deps, session, body, request }) => {
      await disableTwoFactor(deps, session.user, { ...body, clientAddress: request.ip });
    },
  }),
];
