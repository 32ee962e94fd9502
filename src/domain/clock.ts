// Time is injected so month boundaries, retention and default ranges are testable.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand. */
export class FakeClock implements Clock {
  constructor(private ms: number) {}
  now(): Date {
    return new Date(this.ms);
  }
  set(ms: number | Date | string): void {
    this.ms = new Date(ms).getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
