import ipaddr from 'ipaddr.js';

/**
 * The unit a per-address limit counts: an IPv4 address, or an IPv6 /64. One IPv6 host is
 * routinely given a whole /64 and can pick a fresh address per request, so counting IPv6 by full
 * address would give it 2^64 budgets. IPv4-mapped IPv6 counts as the IPv4 address it carries.
 * Anything unparsable counts as itself.
 */
export function addressLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
