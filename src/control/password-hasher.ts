// Passwords as argon2id hashes (@node-rs/argon2, on libuv's thread pool, so at most its size of
// hashes run at once). The PHC string keeps the parameters, so they can be raised later and older
// hashes still verify. The choice and its measurement: docs/decisions/people.md "Password hashes".
import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../ports/password-hasher.js';

export interface Argon2Params {
  /** KiB */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** 64 MiB, 2 passes, 1 lane: above OWASP's floor (19 MiB, 2, 1); 80-300 ms a verification on the project's shared 2-core machine. */
export const PASSWORD_HASH_PARAMS: Readonly<Argon2Params> = Object.freeze({ memoryCost: 65_536, timeCost: 2, parallelism: 1 });

/** argon2id in the package's enum (a const enum its types declare, which tsx cannot inline) */
const ARGON2ID = 2;

export class Argon2PasswordHasher implements PasswordHasher {
  constructor(private readonly params: Readonly<Argon2Params> = PASSWORD_HASH_PARAMS) {}

  hash(password: string): Promise<string> {
    return hash(password, { ...this.params, algorithm: ARGON2ID });
  }

  async verify(stored: string, password: string): Promise<boolean> {
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  }
}
