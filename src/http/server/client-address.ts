// The client address of a request exactly as Fastify's request.ip gives it under the app's trustProxy
// (the raw collection path answers without a Fastify request, and its rate limit and visitor key
// must see the same address the routed path does).
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** What app.ts hands Fastify as trustProxy. */
export type TrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

/** Trust the `hops` proxies nearest to the server (proxy-addr's numeric form). */
function hopsOf(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export function trustProxyOption(configured: boolean | number | string[]): TrustProxy {
  return typeof configured === 'number' ? hopsOf(configured) : configured;
}

/** request.ip's computation: proxy-addr's last trusted hop, or the socket's address when nothing is trusted. */
export function clientAddressReader(trust: TrustProxy): (req: IncomingMessage) => string | undefined {
  if (trust === false) return (req) => req.socket?.remoteAddress;
  const fn = trust === true ? () => true : typeof trust === 'function' ? trust : proxyAddr.compile(trust);
  return (req) => {
    const addrs = proxyAddr.all(req, fn);
    return addrs[addrs.length - 1];
  };
}
