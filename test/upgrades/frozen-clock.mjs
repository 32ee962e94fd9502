// Preloaded (`node --import`) into every footfall process of an upgrade fixture, the one that made it
// and the one that opens it again: Date stands still at FOOTFALL_FROZEN_NOW, so "today", default
// ranges, retention, session and token expiry and every stored instant are the same in both, whatever
// the day the suite runs. Timers are real (setTimeout is not Date). Commit-agnostic: it needs nothing of
// the code it runs under, so a commit made before it existed runs under it too.
const now = Date.parse(process.env.FOOTFALL_FROZEN_NOW ?? '');
if (!Number.isFinite(now)) throw new Error('frozen-clock.mjs: set FOOTFALL_FROZEN_NOW to an ISO instant');
const RealDate = Date;
class FrozenDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(now);
    else super(...args);
  }
  static now() {
    return now;
  }
}
globalThis.Date = FrozenDate;
// A Date made by a module that kept the real constructor still reads as one.
Object.defineProperty(FrozenDate, Symbol.hasInstance, { value: (x) => x instanceof RealDate });
