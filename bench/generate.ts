// Bench data: exactly N NDJSON events of one generated site (the demo's traffic model) spread over
// every day of the window, the newest days included. Not a bench itself (no `run`).
//
// The traffic model draws visitors per day, so the events it yields for a given visitorsPerDay are
// known only by generating them. A counting pass measures that, the real pass runs at ~97% of the
// target so it reaches the window's last day, and the few percent left are drawn again from the
// window's start (older days get a little more; none is left empty).
import fs from 'node:fs';
import { Prng } from '../src/ingest/demo/prng.js';
import { siteTraffic, type TrafficSite } from '../src/ingest/demo/traffic.js';

const FIRST_PASS_SHARE = 0.97;

export interface GeneratedSite {
  siteId: string;
  tenants: string[];
  /** UTC days in the window */
  days: number;
  /** the window's first day (UTC midnight, ms) */
  startDayMs: number;
  /** no event after this instant */
  endMs: number;
  seed?: number;
}

function trafficSite(g: GeneratedSite, visitorsPerDay: number): TrafficSite {
  return { id: g.siteId, host: 'bench.example', tenants: g.tenants, visitorsPerDay, growth: 0.2 };
}

function countLines(g: GeneratedSite, visitorsPerDay: number): number {
  let n = 0;
  for (const lines of siteTraffic(new Prng(g.seed ?? 11), trafficSite(g, visitorsPerDay), g.startDayMs, g.days, g.endMs)) n += lines.length;
  return n;
}

/** Writes exactly `events` lines to `file`; throws when they do not reach the window's last day. */
export function writeSiteEvents(file: string, g: GeneratedSite, events: number): void {
  const probe = Math.max(1, Math.ceil(events / g.days / 2.3));
  const perVisitorDay = countLines(g, probe) / probe; // lines per unit of visitorsPerDay
  const visitorsPerDay = Math.max(1, Math.floor((events * FIRST_PASS_SHARE) / perVisitorDay));
  const fd = fs.openSync(file, 'w');
  let left = events;
  let lastMs = 0;
  try {
    for (let pass = 0; left > 0; pass++) {
      let block = '';
      for (const lines of siteTraffic(new Prng((g.seed ?? 11) + pass), trafficSite(g, visitorsPerDay), g.startDayMs, g.days, g.endMs)) {
        for (const l of lines) {
          if (left === 0) break;
          block += JSON.stringify(l) + '\n';
          left--;
          if (pass === 0) lastMs = Math.max(lastMs, Date.parse(l.ts as string));
        }
        if (block.length > 1 << 20 || left === 0) {
          fs.writeSync(fd, block);
          block = '';
        }
        if (left === 0) break;
      }
      if (block) fs.writeSync(fd, block);
    }
  } finally {
    fs.closeSync(fd);
  }
  const lastDay = new Date(lastMs).toISOString().slice(0, 10);
  if (lastDay !== new Date(g.endMs).toISOString().slice(0, 10))
    throw new Error(`generated events stop on ${lastDay}, before the window's last day`);
}
