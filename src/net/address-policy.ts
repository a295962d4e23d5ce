import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which outbound destinations the service may reach (contract §2 DOSSIER_ALLOW_PRIVATE_NETWORK,
 * §8 webhooks, §9 document_url). Without the private-network allowance only `https:` URLs whose
 * every address is global unicast pass; with it, anything with an http(s) URL does (local
 * development and tests only).
 */
export interface OutboundPolicy {
  allowPrivateNetwork: boolean;
}

export type UrlRefusal = 'invalid_url' | 'blocked_address';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: UrlRefusal; message: string };

/**
 * Public means global unicast and nothing else: an allow-list, so a range we forgot is refused
 * rather than reached. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it
 * carries (the connection goes to that IPv4 address); the other IPv6 forms that embed an IPv4
 * address (IPv4-compatible, 6to4, Teredo, NAT64) are refused outright.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  // ipaddr.js reads `::8.8.8.8` as `::ffff:8.8.8.8`; node's own parser (BlockList) does not, so
  // the IPv6 ranges are judged by it.
  if (isIP(bare) !== 6) return false;
  if (inV6(MAPPED_V4, bare)) return (parsed as ipaddr.IPv6).toIPv4Address().range() === 'unicast';
  // IPv6: global unicast 2000::/3 only, minus its special ranges (issue 9 §5). Everything else —
  // IPv4-compatible `::127.0.0.1`, NAT64 64:ff9b::/96, ULA fc00::/7, link-local fe80::/10,
  // multicast — lies outside 2000::/3 and is refused without a list.
  return inV6(GLOBAL_UNICAST_V6, bare) && !inV6(SPECIAL_IN_GLOBAL_V6, bare);
}

function subnets(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net!, Number(bits), 'ipv6');
  }
  return list;
}

function inV6(list: BlockList, address: string): boolean {
  try {
    return list.check(address, 'ipv6');
  } catch {
    return false;
  }
}

const MAPPED_V4 = subnets(['::ffff:0:0/96']);
const GLOBAL_UNICAST_V6 = subnets(['2000::/3']);
/** Inside 2000::/3 but not somewhere to send webhooks or fetch documents from. */
const SPECIAL_IN_GLOBAL_V6 = subnets([
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID…
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4: carries an IPv4 address, possibly a private one
  '3fff::/20', // documentation (RFC 9637)
]);

/** Host names that mean this machine whatever DNS says (RFC 6761 reserves `localhost` and below). */
function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** The host of a URL as net.connect wants it: IPv6 literals without their brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Checks what can be known without DNS: the URL parses, the scheme is https (or http when private
 * networks are allowed), there are no credentials, and a literal or local host is public. The
 * WHATWG parser has already normalised the odd IPv4 spellings (`2130706433`, `0x7f.1`) to dotted form.
 */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid_url', message: 'is not a valid absolute URL' };
  }
  const schemes = policy.allowPrivateNetwork ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return { ok: false, reason: 'invalid_url', message: policy.allowPrivateNetwork ? 'must be an http or https URL' : 'must be an https URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'invalid_url', message: 'must not carry credentials' };
  if (url.hostname === '') return { ok: false, reason: 'invalid_url', message: 'has no host' };
  if (policy.allowPrivateNetwork) return { ok: true, url };
  const host = bareHost(url.hostname);
  if (isLocalName(host)) return { ok: false, reason: 'blocked_address', message: `must not point at this machine (${host})` };
  if (isIP(host) !== 0 && !isPublicAddress(host)) {
    return { ok: false, reason: 'blocked_address', message: `must resolve to a public address, not ${host}` };
  }
  return { ok: true, url };
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo), every address. */
export const systemLookup: Lookup = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * `checkOutboundUrl` plus DNS: every address the name resolves to must be public (contract §9).
 * A name that does not resolve now is let through: the connection-time check decides for each
 * attempt, and refusing an endpoint over a passing DNS hiccup would help nobody.
 */
export async function checkOutboundUrlResolved(raw: string, policy: OutboundPolicy, lookup: Lookup, timeoutMs = 3000): Promise<UrlCheck> {
  const checked = checkOutboundUrl(raw, policy);
  if (!checked.ok || policy.allowPrivateNetwork) return checked;
  const host = bareHost(checked.url.hostname);
  if (isIP(host) !== 0) return checked;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    lookup(host).catch(() => [] as ResolvedAddress[]),
    new Promise<ResolvedAddress[]>((resolve) => (timer = setTimeout(() => resolve([]), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
  const blocked = addresses.find((a) => !isPublicAddress(a.address));
  if (blocked) return { ok: false, reason: 'blocked_address', message: `resolves to a non-public address (${blocked.address})` };
  return checked;
}
