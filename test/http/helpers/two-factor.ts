// Two-factor sign-in for the HTTP tests: turning it on for a signed-in person through the real routes,
// and the code their app would show at the harness's (fake) time.
import assert from 'node:assert/strict';
import { HOTP, Secret } from 'otpauth';
import { stepAt } from '../../../src/domain/two-factor.js';
import { checked, type Person } from './app-api.js';
import type { Harness } from './harness.js';

/** The code of `secret` for the 30-second step `offset` steps from the harness's now. */
export function codeAt(h: Harness, secret: string, offset = 0): string {
  return HOTP.generate({ secret: Secret.fromBase32(secret), counter: stepAt(h.clock.now().getTime()) + offset });
}

/** Turns two-factor on for `p` (setup, then the password and a current code): the secret and the recovery codes. */
export async function turnOn(h: Harness, p: Person): Promise<{ secret: string; codes: string[] }> {
  const setup = await checked(h, p, 'POST', '/app/api/session/two-factor/setup');
  assert.equal(setup.statusCode, 200, setup.body);
  const secret: string = setup.json().secret;
  const on = await checked(h, p, 'POST', '/app/api/session/two-factor/enable', { body: { password: p.password, code: codeAt(h, secret) } });
  assert.equal(on.statusCode, 200, on.body);
  return { secret, codes: on.json().recovery_codes };
}

export function secondStep(h: Harness, challenge: string, code: string, address = '203.0.113.9') {
  return h.app.inject({ method: 'POST', url: '/app/api/session/second-step', payload: { challenge, code }, remoteAddress: address });
}
