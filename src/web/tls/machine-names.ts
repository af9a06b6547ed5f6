import net from 'node:net';
import type os from 'node:os';
import type { CertificateNames } from './certificates.js';

export type NetworkInterfaces = ReturnType<typeof os.networkInterfaces>;

/** The name Hearth answers to over mDNS; first in the certificate, so it is also its common name. */
export const mdnsHostName = 'hearth.local';

/**
 * Every name and address a browser on the LAN may use for this machine. Link-local IPv6
 * addresses are left out: they need a zone id, which browsers do not accept in a URL.
 */
export function machineCertificateNames(options: { interfaces: NetworkInterfaces; hostname: string; extraNames: string[] }): CertificateNames {
  const hostname = options.hostname.toLowerCase();
  const dnsNames = [mdnsHostName, 'localhost'];
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(hostname) && hostname !== 'localhost') {
    dnsNames.push(hostname);
    if (!hostname.endsWith('.local')) dnsNames.push(`${hostname.split('.')[0]}.local`);
  }
  const ipAddresses = ['127.0.0.1', '::1'];
  for (const entry of Object.values(options.interfaces).flat()) {
    if (!entry || entry.internal) continue;
    if (entry.family === 'IPv6' && entry.address.toLowerCase().startsWith('fe80:')) continue;
    ipAddresses.push(entry.address.split('%')[0]!);
  }
  for (const name of options.extraNames) (net.isIP(name) ? ipAddresses : dnsNames).push(name.toLowerCase());
  return { dnsNames: [...new Set(dnsNames)], ipAddresses: [...new Set(ipAddresses)] };
}

/** The machine's LAN IPv4 addresses, the ones worth showing a person (and a QR code). */
export function lanIpv4Addresses(interfaces: NetworkInterfaces): string[] {
  return Object.values(interfaces)
    .flat()
    .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry!.address);
}

/**
 * This machine's host for a link or a redirect: the name the browser asked for when it is one of
 * the machine's own names or addresses, else the address the connection arrived on. Never the
 * Host header as such: a client may send any Host (`evil.example/x?` would become the link).
 */
export function ownHostForUrl(request: { hostname: string; socket: { localAddress?: string } }, names: CertificateNames): string {
  const asked = request.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const own = net.isIP(asked) === 0 ? names.dnsNames.includes(asked) : names.ipAddresses.includes(asked);
  // An IPv4 client of a dual-stack listener arrives on "::ffff:192.168.1.5".
  const host = own ? asked : (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/i, '').split('%')[0]!;
  return net.isIPv6(host) ? `[${host}]` : host;
}
