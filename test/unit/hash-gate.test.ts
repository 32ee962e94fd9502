// The gate every password hash of the process passes: at most `max` at once, the rest queued in order,
// and past the queue's bound a refusal at once (429) rather than a wait for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Argon2PasswordHasher, HashGate, PROCESS_HASH_GATE } from '../../src/control/password-hasher.js';
import { ManageError } from '../../src/domain/manage-errors.js';

/** A task that runs until released, recording how many run with it. */
function held(log: { running: number; peak: number; order: number[] }, id: number) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    release: () => release(),
    task: async () => {
      log.running++;
      log.peak = Math.max(log.peak, log.running);
      log.order.push(id);
      await done;
      log.running--;
      return id;
    },
  };
}

test('sixteen tasks through a gate of one run one at a time, in the order they came', async () => {
  const gate = new HashGate(1, 64);
  const log = { running: 0, peak: 0, order: [] as number[] };
  const tasks = Array.from({ length: 16 }, (_, i) => held(log, i));
  const results = tasks.map((t) => gate.run(t.task));
  for (const t of tasks) {
    await new Promise((r) => setImmediate(r));
    t.release();
  }
  assert.deepEqual(await Promise.all(results), [...Array(16).keys()]);
  assert.equal(log.peak, 1);
  assert.equal(gate.peak, 1);
  assert.deepEqual(log.order, [...Array(16).keys()]);
});

test('a gate of two runs two at once, never three', async () => {
  const gate = new HashGate(2, 64);
  const log = { running: 0, peak: 0, order: [] as number[] };
  const tasks = Array.from({ length: 7 }, (_, i) => held(log, i));
  const results = tasks.map((t) => gate.run(t.task));
  await new Promise((r) => setImmediate(r));
  assert.equal(log.running, 2);
  for (const t of tasks) {
    t.release();
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(results);
  assert.equal(log.peak, 2);
});

test('past the queue bound an attempt is refused at once with RATE_LIMITED and Retry-After; a failed task frees its slot', async () => {
  const gate = new HashGate(1, 2);
  const log = { running: 0, peak: 0, order: [] as number[] };
  const tasks = Array.from({ length: 3 }, (_, i) => held(log, i));
  const accepted = tasks.map((t) => gate.run(t.task));
  await assert.rejects(
    gate.run(async () => 'never'),
    (err: unknown) => err instanceof ManageError && err.code === 'RATE_LIMITED' && err.headers?.['Retry-After'] === '1',
  );
  for (const t of tasks) t.release();
  await Promise.all(accepted);
  await assert.rejects(
    gate.run(async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await gate.run(async () => 'after'), 'after', 'the failed task left no slot taken');
});

test('every Argon2 hasher of the process shares one gate: hashes from two hashers never pass its bound together', async () => {
  const a = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const b = new Argon2PasswordHasher({ memoryCost: 2048, timeCost: 1, parallelism: 1 });
  const hashes = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).hash(`password number ${i}`)));
  assert.ok(await a.verify(hashes[1], 'password number 1'));
  assert.ok(!(await b.verify(hashes[0], 'password number 1')));
  assert.ok(PROCESS_HASH_GATE.max >= 1);
  assert.ok(
    PROCESS_HASH_GATE.peak >= 1 && PROCESS_HASH_GATE.peak <= PROCESS_HASH_GATE.max,
    `peak ${PROCESS_HASH_GATE.peak}, max ${PROCESS_HASH_GATE.max}`,
  );
});
