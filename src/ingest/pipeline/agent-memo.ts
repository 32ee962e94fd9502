// What a LineProcessor learns that owes nothing to the catalog: each user agent's parse, the visitor
// keys of its (site, day, ip), the (site, day) salts, the day strings. Apart from the processor so
// that one memo can outlive many processors: live collection renews its processor every few seconds
// to see site changes, and would otherwise pay every active visitor's HMAC and agent parse again.
import { createHmac } from 'node:crypto';
import { parseUserAgent, type ParsedUserAgent } from '../parse/user-agent.js';
import { dailySalt, VISITOR_KEY_HEX_LENGTH } from '../parse/visitor-key.js';
import { utcDayOf } from '../parse/timestamp.js';

const CACHE_LIMIT = 50_000;

/** What one user agent gives: its parse, and the visitor keys of its (site, day, ip) seen so far. */
export interface AgentEntry {
  readonly ua: ParsedUserAgent;
  /** `site\0day\0ip` -> visitor key, under the memo's current secret */
  readonly keys: Map<string, string>;
}

export class AgentMemo {
  private readonly agents = new Map<string, AgentEntry>();
  /** visitor keys held across all agents, bounded by cacheLimit */
  private keyCount = 0;
  private readonly salts = new Map<string, Buffer>();
  private readonly days = new Map<number, string>();
  /** the secret the keys and salts were computed under (null: none computed yet) */
  private secret: string | null = null;

  /** `cacheLimit`: entries each memo holds before it is dropped (bounded memory; a miss only recomputes). */
  constructor(readonly cacheLimit: number = CACHE_LIMIT) {}

  /**
   * The agent's entry, parsed on first sight. One lookup by the (long) agent string serves both the
   * parse and the keys, which hang off the entry: hand the entry back to visitorKey.
   */
  agent(agent: string): AgentEntry {
    let entry = this.agents.get(agent);
    if (entry === undefined) {
      if (this.agents.size >= this.cacheLimit) this.forgetAgents();
      entry = { ua: parseUserAgent(agent), keys: new Map() };
      this.agents.set(agent, entry);
    }
    return entry;
  }

  /**
   * dailyVisitorKey(secret, siteId, utcDayOf(tsMs), ip, agent), memoized; `entry` is agent(agent).
   * Each call names its secret and the memo serves only keys of that secret: handed another one, it
   * drops every key and salt first, so processors of different secrets may share it safely.
   */
  visitorKey(entry: AgentEntry, agent: string, secret: string, siteId: string, tsMs: number, ip: string): string {
    if (secret !== this.secret) this.useSecret(secret);
    const day = this.dayOf(tsMs);
    const id = `${siteId}\u0000${day}\u0000${ip}`;
    let key = entry.keys.get(id);
    if (key === undefined) {
      if (this.keyCount >= this.cacheLimit) {
        this.forgetAgents();
        this.agents.set(agent, entry);
      }
      key = this.computeKey(secret, siteId, day, ip, agent);
      entry.keys.set(id, key);
      this.keyCount++;
    }
    return key;
  }

  /** Forgets what the previous secret gave (keys, salts); agent parses and days do not depend on it. */
  private useSecret(secret: string): void {
    for (const e of this.agents.values()) e.keys.clear();
    this.keyCount = 0;
    this.salts.clear();
    this.secret = secret;
  }

  /** Drops every agent entry and the keys under them. */
  private forgetAgents(): void {
    for (const e of this.agents.values()) e.keys.clear();
    this.agents.clear();
    this.keyCount = 0;
  }

  /** utcDayOf, memoized per day number. */
  private dayOf(tsMs: number): string {
    const n = Math.floor(tsMs / 86_400_000);
    let day = this.days.get(n);
    if (day === undefined) {
      if (this.days.size >= this.cacheLimit) this.days.clear();
      day = utcDayOf(tsMs);
      this.days.set(n, day);
    }
    return day;
  }

  /**
   * dailyVisitorKey with the day's salt computed once per (site, day) instead of per key: the
   * same two HMACs (visitor-key.ts), the first one memoized. A test holds them equal.
   */
  private computeKey(secret: string, siteId: string, day: string, ip: string, agent: string): string {
    const saltId = `${siteId}\u0000${day}`;
    let salt = this.salts.get(saltId);
    if (salt === undefined) {
      if (this.salts.size >= this.cacheLimit) this.salts.clear();
      salt = dailySalt(secret, siteId, day);
      this.salts.set(saltId, salt);
    }
    return createHmac('sha256', salt).update(`${ip.trim()}\u0000${agent}`).digest('hex').slice(0, VISITOR_KEY_HEX_LENGTH);
  }
}
