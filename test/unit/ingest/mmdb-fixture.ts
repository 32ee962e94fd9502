// Writes small MaxMind DB files for tests, following the format's specification (search tree of
// 24-bit records, 16-byte separator, data section, metadata after "\xAB\xCD\xEFMaxMind.com").
// Only what the tests need: maps, strings, unsigned integers, doubles and arrays.

type Value = string | number | Value[] | { [key: string]: Value };

export interface MmdbEntry {
  /** `a.b.c.d/n` or an IPv6 network such as `2001:480::/43` */
  network: string;
  record: { [key: string]: Value };
}

function ctrl(type: number, size: number): Buffer {
  const head: number[] = [];
  const ext: number[] = [];
  let bits = size;
  if (size >= 65821) {
    bits = 31;
    const v = size - 65821;
    ext.push((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
  } else if (size >= 285) {
    bits = 30;
    const v = size - 285;
    ext.push((v >> 8) & 0xff, v & 0xff);
  } else if (size >= 29) {
    bits = 29;
    ext.push(size - 29);
  }
  if (type <= 7) head.push((type << 5) | bits);
  else head.push(bits, type - 7);
  return Buffer.from([...head, ...ext]);
}

function uint(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.concat([ctrl(6, bytes.length), Buffer.from(bytes)]);
}

function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([ctrl(2, b.length), b]);
  }
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 0 && v < 2 ** 32) return uint(v);
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return Buffer.concat([ctrl(3, 8), b]);
  }
  if (Array.isArray(v)) return Buffer.concat([ctrl(11, v.length), ...v.map(encode)]);
  const keys = Object.keys(v);
  return Buffer.concat([ctrl(7, keys.length), ...keys.flatMap((k) => [encode(k), encode(v[k])])]);
}

function addressBits(network: string, ipVersion: 4 | 6): { bytes: number[]; prefix: number } {
  const [addr, len] = network.split('/');
  let bytes: number[];
  let prefix = Number(len);
  if (addr.includes('.')) {
    bytes = addr.split('.').map(Number);
    if (ipVersion === 6) {
      // IPv4 networks live at ::a.b.c.d in an IPv6 tree
      bytes = [...new Array(12).fill(0), ...bytes];
      prefix += 96;
    }
  } else {
    if (ipVersion === 4) throw new Error(`IPv6 network ${network} in an IPv4 database`);
    const [left, right = ''] = addr.split('::');
    const l = left ? left.split(':') : [];
    const r = right ? right.split(':') : [];
    const groups = [...l, ...new Array(8 - l.length - r.length).fill('0'), ...r].map((g) => parseInt(g, 16));
    bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  }
  return { bytes, prefix };
}

interface TreeNode {
  child: [TreeNode | number | null, TreeNode | number | null];
}

/** The bytes of an MMDB file holding `entries`. */
export function writeMmdb(entries: MmdbEntry[], meta: { ipVersion: 4 | 6; databaseType: string }): Buffer {
  const data: Buffer[] = [];
  const offsets: number[] = [];
  let dataSize = 0;
  for (const e of entries) {
    const b = encode(e.record);
    offsets.push(dataSize);
    data.push(b);
    dataSize += b.length;
  }
  const root: TreeNode = { child: [null, null] };
  entries.forEach((e, i) => {
    const { bytes, prefix } = addressBits(e.network, meta.ipVersion);
    let node = root;
    for (let d = 0; d < prefix; d++) {
      const bit = (bytes[d >> 3] >> (7 - (d & 7))) & 1;
      if (d === prefix - 1) {
        node.child[bit] = i;
      } else {
        let next = node.child[bit];
        if (next === null || typeof next === 'number') {
          next = { child: [null, null] };
          node.child[bit] = next;
        }
        node = next;
      }
    }
  });
  const nodes: TreeNode[] = [];
  const number = new Map<TreeNode, number>();
  const queue = [root];
  while (queue.length) {
    const n = queue.shift()!;
    number.set(n, nodes.length);
    nodes.push(n);
    for (const c of n.child) if (c !== null && typeof c !== 'number') queue.push(c);
  }
  const count = nodes.length;
  const tree = Buffer.alloc(count * 6);
  nodes.forEach((n, i) => {
    n.child.forEach((c, side) => {
      const v = c === null ? count : typeof c === 'number' ? offsets[c] + count + 16 : number.get(c)!;
      tree.writeUIntBE(v, i * 6 + side * 3, 3);
    });
  });
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: meta.ipVersion,
    database_type: meta.databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    description: { en: 'footfall test database' },
  });
  const marker = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, marker, metadata]);
}
