// Answers for what never becomes a request: bytes Node's HTTP parser refuses (431 for headers past
// its limit, 400 for a malformed request line, header or length, an unknown method such as FOO) and
// CONNECT, which Node hands to a 'connect' listener instead of the router. They get the envelope and
// an X-Request-Id like any other error, then the connection closes (its framing is lost).
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { envelope, readApiAllow } from './error-envelope.js';
import type { RouteMethods } from './route-methods.js';
import { newRequestId } from './request-id.js';

function writeEnvelope(
  socket: Socket,
  status: number,
  reason: string,
  code: 'INVALID_PARAMS' | 'INVALID_METHOD' | 'NOT_FOUND',
  message: string,
  extra = '',
): string {
  const id = newRequestId();
  const body = JSON.stringify(envelope(code, message, id));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\n${extra}` +
      'Connection: close\r\n\r\n' +
      body,
  );
  return id;
}

/** The path of the request line Node refused, when it has one (e.g. `FOO /v1/me HTTP/1.1`). */
function requestPath(err: { rawPacket?: unknown }): string | undefined {
  if (!Buffer.isBuffer(err.rawPacket)) return undefined;
  const line = err.rawPacket.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0];
  return line ? /^[A-Za-z]+ (\/[^ ?]*)(\?[^ ]*)? HTTP\/1\.[01]$/.exec(line)?.[1] : undefined;
}

/** Fastify's clientErrorHandler (Node's 'clientError' event). */
export function clientErrorHandler(routeMethods: RouteMethods) {
  return function (this: { log: FastifyBaseLogger }, err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
    // A reset connection has no one to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // Part of a response already went out on this socket: another status line would corrupt it.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy(err);
      return;
    }
    let id: string;
    let path: string | undefined;
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      id = writeEnvelope(socket, 431, 'Request Header Fields Too Large', 'INVALID_PARAMS', 'The request headers are too large.');
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      id = writeEnvelope(socket, 408, 'Request Timeout', 'INVALID_PARAMS', 'The request did not arrive in time.');
    } else if (err.code === 'HPE_INVALID_METHOD' && (path = requestPath(err)) !== undefined) {
      // A method Node does not know, on a request line that is otherwise whole: like any other
      // method, 405 on a known path and 404 elsewhere.
      const allow = readApiAllow(routeMethods, path);
      id =
        allow === null
          ? writeEnvelope(socket, 404, 'Not Found', 'NOT_FOUND', 'Unknown endpoint.')
          : writeEnvelope(
              socket,
              405,
              'Method Not Allowed',
              'INVALID_METHOD',
              `Unknown HTTP method; use ${allow.replace(', ', ' or ')}.`,
              `Allow: ${allow}\r\n`,
            );
    } else {
      id = writeEnvelope(socket, 400, 'Bad Request', 'INVALID_PARAMS', 'The request is not valid HTTP/1.1.');
    }
    this.log.debug({ err: { code: err.code, message: err.message }, request_id: id }, 'client error');
  };
}

/** Node's 'connect' event: CONNECT is a method this server does not answer. */
export function refuseConnect(_req: unknown, socket: Socket): void {
  writeEnvelope(socket, 405, 'Method Not Allowed', 'INVALID_METHOD', 'Method CONNECT is not supported; use GET.', 'Allow: GET\r\n');
}
