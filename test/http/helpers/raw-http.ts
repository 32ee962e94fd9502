// Bytes on the wire: writes a request as given to a real listening server and parses what comes
// back (status line, headers, body by Content-Length or chunked), so tests see exactly what a client
// would, including answers Node or Fastify write before any route runs.
import net from 'node:net';
import zlib from 'node:zlib';

export interface RawResponse {
  status: number;
  reason: string;
  /** lower-case names; repeated headers joined with ", " */
  headers: Record<string, string>;
  /** the body as sent (still compressed when Content-Encoding says so) */
  body: Buffer;
  /** the body decoded per Content-Encoding */
  decoded(): Buffer;
  json(): any;
}

/** Sends `request` (CRLF line ends), reads until the server closes, and parses one response. */
export function rawRequest(address: string, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`));
    }, timeoutMs);
    socket.on('data', (d) => chunks.push(d));
    // The server may close while we still write (a refused oversized request): what it sent counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(request);
  });
}

export function parseResponse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no header block in ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) (.*)$/.exec(statusLine);
  if (!m) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let rest = bytes.subarray(end + 4);
  let body: Buffer;
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  } else {
    body = headers['content-length'] === undefined ? rest : rest.subarray(0, Number(headers['content-length']));
  }
  const decoded = () => {
    const enc = headers['content-encoding'];
    if (enc === 'br') return zlib.brotliDecompressSync(body);
    if (enc === 'gzip') return zlib.gunzipSync(body);
    return body;
  };
  return { status: Number(m[1]), reason: m[2], headers, body, decoded, json: () => JSON.parse(decoded().toString('utf8')) };
}

/** A GET request's bytes; `headers` are written as given, in order (repeats allowed). */
export function get(path: string, headers: [string, string][] = [], method = 'GET'): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers.map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''].join(
    '\r\n',
  );
}
