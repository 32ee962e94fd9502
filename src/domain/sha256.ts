// SHA-256 of a string, on paths that hash a lot: every request hashes its token twice, every imported
// event is hashed for its identity. The one-shot crypto.hash (Node >= 20.12) needs no Hash object
// per call; older Node 20 releases use createHash.
import * as crypto from 'node:crypto';

// Undefined before Node 20.12, although @types/node declares it on every 20.x.
const oneShot: typeof crypto.hash | undefined = crypto.hash;

export function sha256(data: string, encoding: 'hex'): string;
export function sha256(data: string, encoding: 'buffer'): Buffer;
export function sha256(data: string, encoding: 'hex' | 'buffer'): string | Buffer {
  if (oneShot) return encoding === 'hex' ? oneShot('sha256', data, 'hex') : oneShot('sha256', data, 'buffer');
  const h = crypto.createHash('sha256').update(data, 'utf8');
  return encoding === 'hex' ? h.digest('hex') : h.digest();
}
