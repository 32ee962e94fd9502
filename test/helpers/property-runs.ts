// How hard the property tests search (test/fast-check-limits.ts applies it to every property):
// - FOOTFALL_PROPERTY_RUNS_FACTOR multiplies every property's runs (default 1: what fits the suite's
//   time; nightly runs take 10 or more); each property's own count goes through runs().
// - Every run draws a seed of its own, the same for every property of a test file and for the fixture
//   data it samples (propertySeed); a failure prints it (fast-check's report, or seeded()'s message),
//   and FOOTFALL_PROPERTY_SEED=<seed> replays that file's run exactly.
import assert from 'node:assert/strict';

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  assert.ok(Number.isFinite(n) && n > 0, `${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

function seedFromEnv(): number | undefined {
  const raw = process.env.FOOTFALL_PROPERTY_SEED;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  assert.ok(Number.isSafeInteger(n), `FOOTFALL_PROPERTY_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

export const RUNS_FACTOR = positive('FOOTFALL_PROPERTY_RUNS_FACTOR', 1);

/** This run's seed: FOOTFALL_PROPERTY_SEED, else a new one each run. */
export const propertySeed: number = seedFromEnv() ?? (Math.floor(Math.random() * 2 ** 31) ^ Date.now()) | 0;

/** A property's runs under FOOTFALL_PROPERTY_RUNS_FACTOR. */
export function runs(n: number): number {
  return Math.max(1, Math.round(n * RUNS_FACTOR));
}

/** Runs `fn` (which samples fixture data from `propertySeed`); a failure names the seed that replays it. */
export async function seeded<T>(fn: (seed: number) => Promise<T>): Promise<T> {
  try {
    return await fn(propertySeed);
  } catch (err) {
    if (err instanceof Error)
      err.message += `\n(fixture data of seed ${propertySeed}: FOOTFALL_PROPERTY_SEED=${propertySeed} replays this run)`;
    throw err;
  }
}
