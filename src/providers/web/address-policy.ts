import net from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a page read may reach. The model chooses the address, so everything inside
 * the house is refused by default: loopback, private, link-local (cloud metadata), unique-local
 * IPv6, IPv4 written inside IPv6, `.local` names, and this server's own ports. WEB_ALLOW names
 * hosts the person lets through anyway (a home wiki).
 */
export interface AddressPolicy {
  /** Why this host name may not be read before it is resolved; undefined: resolve it. */
  refuseHost(hostname: string): string | undefined;
  /** Why this address (resolved from `hostname`, or the host itself) may not be reached on `port`. */
  refuseAddress(hostname: string, address: string, port: number): string | undefined;
}

export interface AddressPolicyOptions {
  /** Host names (or addresses) the person allows, whatever they resolve to (WEB_ALLOW). */
  allowHosts?: readonly string[];
  /** This server's own ports (Hearth's, its set-up page's): never read on this machine. */
  ownPorts?: readonly number[];
  /** This machine's own addresses (default: its network interfaces). */
  ownAddresses?: () => readonly string[];
}

/** ipaddr.js range names that are the open internet; every other range is refused. */
const publicRanges = new Set(['unicast']);

/** [::1] → ::1; a trailing dot and case do not make a name different. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

/** The range an address is in, IPv4 written inside IPv6 (::ffff:127.0.0.1) read as the IPv4 it is. */
export function addressRange(address: string): string {
  let parsed = ipaddr.parse(bareHost(address));
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range();
}

function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .flatMap((entry) => (entry ? [bareHost(entry.address)] : []));
}

export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowed = new Set((options.allowHosts ?? []).map(bareHost));
  const ownPorts = new Set(options.ownPorts ?? []);
  const ownAddresses = options.ownAddresses ?? machineAddresses;

  return {
    refuseHost(hostname) {
      const host = bareHost(hostname);
      if (allowed.has(host)) return undefined;
      if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this computer`;
      if (host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.home.arpa')) return `${host} is a name on the home network`;
      if (net.isIP(host) === 0 && !host.includes('.')) return `${host} is a name on the home network (it has no dot)`;
      return undefined;
    },
    refuseAddress(hostname, address, port) {
      const host = bareHost(hostname);
      const bare = bareHost(address);
      if (!ipaddr.isValid(bare)) return `${address} is not an address`;
      const range = addressRange(bare);
      // This server itself: not even an allowed host reaches Hearth's own ports.
      const onThisMachine = range === 'loopback' || range === 'unspecified' || ownAddresses().includes(bare);
      if (onThisMachine && ownPorts.has(port)) return `port ${port} here is Hearth itself`;
      if (allowed.has(host) || allowed.has(bare)) return undefined;
      if (!publicRanges.has(range)) return `${host === bare ? bare : `${host} (${bare})`} is ${describeRange(range)}`;
      return undefined;
    },
  };
}

function describeRange(range: string): string {
  switch (range) {
    case 'loopback':
      return 'this computer (loopback)';
    case 'private':
    case 'uniqueLocal':
      return 'on a private network';
    case 'linkLocal':
      return 'link-local (where cloud servers keep their secrets)';
    case 'unspecified':
      return 'no address (it means this computer)';
    default:
      return `not on the open internet (${range})`;
  }
}
