import { MemoryRateLimiter } from '../../src/limits/memory.js';
import { runRateLimiterContract } from './rate-limiter.contract.js';

runRateLimiterContract('memory', () => new MemoryRateLimiter());
// A Redis limiter joins here, opted in by FOOTFALL_TEST_REDIS_URL, when src/limits/redis.ts exists.
