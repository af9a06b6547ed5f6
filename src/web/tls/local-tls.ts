import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomicallySync } from '../../storage/atomic-file.js';
import {
  createCertificateAuthority,
  createServerCertificate,
  homeNetworkConstraints,
  addressInRanges,
  namesWithinConstraints,
  readNameConstraints,
  type CertificateNames,
  type CertificatePair,
  type RsaKeySource,
} from './certificates.js';
import { machineCertificateNames, type NetworkInterfaces } from './machine-names.js';

/** The extendedKeyUsage OID of TLS servers. */
const serverAuthUsage = '1.3.6.1.5.5.7.3.1';

/** A server certificate is replaced when it has fewer days than this left. */
export const renewalMarginDays = 30;

export interface LocalTlsSources {
  now: () => Date;
  networkInterfaces: () => NetworkInterfaces;
  hostname: () => string;
  /** Test seam: ready-made key pairs (making a 2048-bit key costs a fraction of a second of CPU); default fresh ones. */
  rsaKeys?: RsaKeySource;
}

export const systemSources: LocalTlsSources = { now: () => new Date(), networkInterfaces: () => os.networkInterfaces(), hostname: () => os.hostname() };

/** Where the CA and server certificate live: DATA_DIR/tls, keys readable by the owner only. */
export function tlsFilePaths(dataDir: string) {
  const folder = path.join(dataDir, 'tls');
  return {
    folder,
    authorityCertificate: path.join(folder, 'hearth-ca.crt'),
    authorityKey: path.join(folder, 'hearth-ca.key'),
    serverCertificate: path.join(folder, 'server.crt'),
    serverKey: path.join(folder, 'server.key'),
  };
}

export interface LocalTls {
  /** The CA certificate (PEM): public, what phones install. */
  readonly authorityCertificatePem: string;
  /** Why a server certificate was made at start (undefined: the saved one was still good). */
  readonly madeAtStart: string | undefined;
  /** Set when the saved CA predates its limit to web servers (it could also sign e-mail or code certificates). */
  readonly authorityTooBroad: string | undefined;
  /** The server certificate and key in use now. */
  current(): CertificatePair;
  /** Names the current certificate covers; refused: machine names the CA may not sign (see docs/https.md). */
  names(): { permitted: CertificateNames; refused: string[] };
  /** Replaces the server certificate when it expires within renewalMarginDays or misses a name; says why. */
  renewIfDue(): string | undefined;
}

function readPair(certificateFile: string, keyFile: string): CertificatePair | undefined {
  const hasCertificate = fs.existsSync(certificateFile);
  const hasKey = fs.existsSync(keyFile);
  if (!hasCertificate && !hasKey) return undefined;
  if (hasCertificate !== hasKey) return undefined;
  return { certificatePem: fs.readFileSync(certificateFile, 'utf8'), privateKeyPem: fs.readFileSync(keyFile, 'utf8') };
}

function writePair(pair: CertificatePair, certificateFile: string, keyFile: string): void {
  writeFileAtomicallySync(keyFile, pair.privateKeyPem, 0o600);
  writeFileAtomicallySync(certificateFile, pair.certificatePem, 0o644);
}

/** Why the server certificate must be replaced, or undefined when it is fine. */
export function renewalReason(server: CertificatePair | undefined, authorityPem: string, names: CertificateNames, now: Date): string | undefined {
  if (!server) return 'no server certificate yet';
  let certificate: crypto.X509Certificate;
  try {
    certificate = new crypto.X509Certificate(server.certificatePem);
  } catch {
    return 'the server certificate cannot be read';
  }
  const authority = new crypto.X509Certificate(authorityPem);
  if (!certificate.checkIssued(authority) || !certificate.verify(authority.publicKey)) return 'the server certificate was not issued by this CA';
  const daysLeft = (new Date(certificate.validTo).getTime() - now.getTime()) / 86_400_000;
  if (daysLeft < renewalMarginDays) return `the server certificate expires in ${Math.max(0, Math.floor(daysLeft))} days`;
  const missing = [
    ...names.dnsNames.filter((name) => certificate.checkHost(name, { wildcards: false, subject: 'never' }) === undefined),
    ...names.ipAddresses.filter((ip) => certificate.checkIP(ip) === undefined),
  ];
  if (missing.length > 0) return `the machine's names changed (not yet covered: ${missing.join(', ')})`;
  return undefined;
}

/**
 * Loads the local CA and server certificate from DATA_DIR/tls, making whatever is missing, and
 * renews the server certificate when due. The CA is made once: phones trust it, so it must last.
 */
export function createLocalTls(options: { dataDir: string; extraNames: string[]; sources?: Partial<LocalTlsSources> }): LocalTls {
  const sources = { ...systemSources, ...options.sources };
  const files = tlsFilePaths(options.dataDir);
  fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });

  let authority = readPair(files.authorityCertificate, files.authorityKey);
  if (!authority) {
    if (fs.existsSync(files.authorityCertificate) || fs.existsSync(files.authorityKey)) {
      throw new Error(`${files.folder} holds half a CA (certificate or key missing); move that folder away to make a new CA`);
    }
    const hostname = sources.hostname();
    const constraints = homeNetworkConstraints(hostname, options.extraNames);
    // Addresses this machine has now but outside home ranges (a public IPv4, a global IPv6 prefix) are permitted too.
    const current = machineCertificateNames({ interfaces: sources.networkInterfaces(), hostname, extraNames: options.extraNames });
    for (const ip of current.ipAddresses) {
      if (addressInRanges(ip, constraints.ipRanges)) continue;
      constraints.ipRanges.push(net.isIPv4(ip) ? `${ip}/32` : `${ip}/64`);
    }
    authority = createCertificateAuthority({ commonName: `Hearth local CA (${hostname})`, constraints, now: sources.now(), rsaKeys: sources.rsaKeys });
    writePair(authority, files.authorityCertificate, files.authorityKey);
  }
  const authorityPair = authority;
  const constraints = readNameConstraints(authorityPair.certificatePem);
  let server = readPair(files.serverCertificate, files.serverKey);

  const names = () =>
    namesWithinConstraints(
      machineCertificateNames({ interfaces: sources.networkInterfaces(), hostname: sources.hostname(), extraNames: options.extraNames }),
      constraints,
    );

  const renewIfDue = (): string | undefined => {
    const wanted = names().permitted;
    const now = sources.now();
    const reason = renewalReason(server, authorityPair.certificatePem, wanted, now);
    if (reason === undefined) return undefined;
    server = createServerCertificate({ authority: authorityPair, names: wanted, now, rsaKeys: sources.rsaKeys });
    writePair(server, files.serverCertificate, files.serverKey);
    return reason;
  };
  const madeAtStart = renewIfDue();

  // CAs made before extendedKeyUsage was added stay valid for S/MIME, code signing and client login.
  const usages = new crypto.X509Certificate(authorityPair.certificatePem).keyUsage;
  const authorityTooBroad = usages?.length === 1 && usages[0] === serverAuthUsage ? undefined : 'the local CA is not limited to web servers';

  return {
    authorityCertificatePem: authorityPair.certificatePem,
    madeAtStart,
    authorityTooBroad,
    current: () => server!,
    names,
    renewIfDue,
  };
}
