// Passwords as argon2id hashes (@node-rs/argon2, on libuv's thread pool). The PHC string keeps the
// parameters, so they can be raised later and older hashes still verify. The choice and its
// measurement: docs/decisions/people.md "Password hashes".
//
// Every hash and verification of the process passes one gate (HashGate): each costs 64 MiB and a core
// for 80-300 ms, so sixteen at once (sixteen bogus sign-ins) would take both cores of a small machine
// and every other request (health, collection, reads) would wait behind them. At most `max` run at
// once (the cores but one); the others queue, and past `maxWaiting` in the queue an attempt is refused
// at once with 429 rather than held for ever.
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { ManageError } from '../domain/manage-errors.js';
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

/** At most `max` tasks at once, at most `maxWaiting` queued behind them; first come, first served. */
export class HashGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** the most that ever ran at once (tests and benches read it) */
  peak = 0;

  constructor(
    readonly max: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxWaiting)
        throw new ManageError(
          'RATE_LIMITED',
          'The server is busy checking passwords: try again in a second.',
          { retry_after_seconds: 1 },
          { 'Retry-After': '1' },
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await task();
    } finally {
      // the slot passes straight to the next in line (running stays counted), else it frees
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The process's gate: every Argon2PasswordHasher shares it, whatever made it. */
export const PROCESS_HASH_GATE = new HashGate(Math.max(1, availableParallelism() - 1), 64);

export class Argon2PasswordHasher implements PasswordHasher {
  constructor(
    private readonly params: Readonly<Argon2Params> = PASSWORD_HASH_PARAMS,
    private readonly gate: HashGate = PROCESS_HASH_GATE,
  ) {}

  hash(password: string): Promise<string> {
    return this.gate.run(() => hash(password, { ...this.params, algorithm: ARGON2ID }));
  }

  verify(stored: string, password: string): Promise<boolean> {
    return this.gate.run(async () => {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    });
  }
}
