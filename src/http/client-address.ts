import net from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * Whether an address is in a list of addresses and CIDR ranges (TRUST_PROXY's entries,
 * already checked by the config). An IPv4 entry also matches its IPv4-mapped IPv6 form, as
 * a server listening on `::` sees IPv4 peers.
 */
export function addressListMatcher(entries: readonly string[]): (address?: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const family = net.isIP(address ?? '');
    return family !== 0 && list.check(address!, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** `[v6]:port` and `v4:port`, as some proxies append to `X-Forwarded-For`. */
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const V4_WITH_PORT = /^([^:]+):\d{1,5}$/;

/**
 * The IP address in `text`, in its canonical form (lower case, zeros compressed, no zone),
 * with a port and brackets taken off; undefined when it holds no IP address.
 */
export function ipAddressIn(text: string | undefined): string | undefined {
  const trimmed = text?.trim() ?? '';
  const bare = BRACKETED.exec(trimmed)?.[1] ?? V4_WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  const family = net.isIP(bare);
  if (family === 0) return undefined;
  return new net.SocketAddress({ address: bare, family: family === 6 ? 'ipv6' : 'ipv4' }).address;
}

/**
 * CONTRACT, Under races, crashes and abuse (Throttling without locking others out): the
 * client address a request is throttled, limited and logged by. Behind a proxy of
 * TRUST_PROXY, `request.ip` is whatever that proxy put in `X-Forwarded-For`: with a port
 * (`203.0.113.5:41234`) each connection would be a client of its own and escape its
 * lockout, so the port is taken off, and a value that is no IP address at all (`unknown`,
 * a proxy's obfuscated identifier) falls back to the peer's own address.
 */
export function clientAddress(request: FastifyRequest): string {
  const peer = request.raw.socket?.remoteAddress;
  return ipAddressIn(request.ip) ?? ipAddressIn(peer) ?? peer ?? '';
}
