// A DNS server for tests on 127.0.0.1 (UDP, a free port): TXT answers from a table, NXDOMAIN,
// SERVFAIL, or no reply at all. Enough of RFC 1035 for what a resolver asks of a TXT name.
import dgram from 'node:dgram';

/** TXT records (each a list of chunks), a negative answer, or 'drop' (the query is never answered). */
export type DnsAnswer = string[][] | 'nxdomain' | 'servfail' | 'drop';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as FOOTFALL_DNS_SERVERS takes it */
  address: string;
  /** names asked, lower case, in order */
  queries: string[];
  set(name: string, answer: DnsAnswer): void;
  close(): Promise<void>;
}

const TYPE_TXT = 16;
const RCODE = { nxdomain: 3, servfail: 2 } as const;

/** Unknown names are NXDOMAIN. */
export async function startDnsServer(zone: Record<string, DnsAnswer> = {}): Promise<TestDnsServer> {
  const table = new Map(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  const queries: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, peer) => {
    const q = parseQuestion(msg);
    if (!q) return;
    queries.push(q.name);
    const answer = table.get(q.name) ?? 'nxdomain';
    if (answer === 'drop') return;
    const records = typeof answer === 'string' || q.type !== TYPE_TXT ? [] : answer;
    const rcode = typeof answer === 'string' ? RCODE[answer] : 0;
    socket.send(reply(msg, q.end, records, rcode), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    set: (name, answer) => void table.set(name.toLowerCase(), answer),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The first question: its name (lower case), type, and where the question section ends. */
function parseQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length && msg[at] !== 0) {
    const len = msg[at];
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function reply(query: Buffer, questionEnd: number, records: string[][], rcode: number): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const rd = query[2] & 0x01;
  header[2] = 0x84 | rd; // QR, authoritative, recursion desired as asked
  header[3] = 0x80 | rcode; // recursion available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((chunks) => {
    const rdata = Buffer.concat(chunks.map((c) => Buffer.concat([Buffer.from([Buffer.byteLength(c)]), Buffer.from(c)])));
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(TYPE_TXT, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}
