// Whether a cookie goes out Secure. The request's own protocol is not enough: behind a proxy that ends
// TLS, with the default trust settings (no X-Forwarded-Proto believed), every request looks like plain
// http here, and a session cookie without Secure would be sent again over any http:// link to the host.
// The public URL says how people reach the server, so https:// there makes every cookie Secure.
import type { FastifyRequest } from 'fastify';

export function secureCookie(publicUrl: string, request: FastifyRequest): boolean {
  return new URL(publicUrl).protocol === 'https:' || request.protocol === 'https';
}
