// X-Request-Id: a client's id is kept when it is safe to log and echo, else a fresh one is made.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: unknown): value is string {
  return typeof value === 'string' && VALID.test(value);
}

export function newRequestId(): string {
  return `req_${randomUUID()}`;
}

export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return isValidRequestId(given) ? given : newRequestId();
}
