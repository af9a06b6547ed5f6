import crypto from 'node:crypto';
import net from 'node:net';
import forge from 'node-forge';

/** A certificate and its private key, both PEM. */
export interface CertificatePair {
  certificatePem: string;
  privateKeyPem: string;
}

/** What a server certificate is for: names and addresses a browser may use to reach Hearth. */
export interface CertificateNames {
  dnsNames: string[];
  ipAddresses: string[];
}

/** Ranges the local CA may ever sign for (RFC 5280 name constraints): a leaked CA key cannot impersonate a public site. */
export interface NameConstraints {
  /** A name permits itself and every name below it ("local" permits "hearth.local"). */
  dnsNames: string[];
  /** Names permitted alone, nothing below them: a machine named "dev" must not make the CA valid for every .dev site. */
  exactDnsNames: string[];
  /** CIDR ranges, e.g. "192.168.0.0/16". */
  ipRanges: string[];
}

/** Suffixes that are never public names (RFC 6762, RFC 8375, ICANN's .internal; .lan and .home by custom). */
export const homeSuffixes = ['local', 'home.arpa', 'lan', 'home', 'internal'];

const dayMs = 86_400_000;
export const caValidityDays = 3650;
/** Apple refuses to trust a server certificate valid for more than 398 days. */
export const serverValidityDays = 397;

/**
 * Names and ranges of a home network; the machine's other current addresses are added when the CA
 * is made. The host name is permitted alone when it is a single label ("testbox"); under a home
 * suffix it is covered already; any other ("box.example.com") is left out. TLS_NAMES entries
 * the person chose are permitted alone too, never with the names below them.
 */
export function homeNetworkConstraints(hostname: string, extraNames: string[] = []): NameConstraints {
  const dnsNames = ['localhost', ...homeSuffixes];
  const exactDnsNames: string[] = [];
  const ipRanges = [
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '100.64.0.0/10',
    '::1/128',
    'fc00::/7',
    'fe80::/10',
  ];
  const permitAlone = (name: string) => {
    if (name && !nameInConstraints(name, { dnsNames, exactDnsNames })) exactDnsNames.push(name);
  };
  const host = hostname.toLowerCase();
  if (!host.includes('.')) permitAlone(host);
  for (const name of extraNames) {
    if (net.isIPv4(name)) ipRanges.push(`${name}/32`);
    else if (net.isIPv6(name)) ipRanges.push(`${name}/128`);
    else permitAlone(name.toLowerCase());
  }
  return { dnsNames, exactDnsNames, ipRanges: [...new Set(ipRanges)] };
}

function randomSerialNumber(): string {
  // Positive (high bit clear) and unique: browsers reject two certificates with one issuer and serial.
  return '01' + crypto.randomBytes(15).toString('hex');
}

/** Where new key pairs come from: a fresh 2048-bit RSA pair; tests may hand in ready-made ones. */
export type RsaKeySource = () => forge.pki.rsa.KeyPair;

function generateRsaKeys(): forge.pki.rsa.KeyPair {
  // node-forge uses Node's native RSA key generation when it is available (fast).
  return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
}

// node-forge's own IP helpers (what it uses for subjectAltName), missing from @types/node-forge.
const forgeIp = forge.util as unknown as { bytesFromIP(ip: string): string | null; bytesToIP(bytes: string): string | null };

function ipBytes(address: string): Buffer {
  const bytes = forgeIp.bytesFromIP(address.split('%')[0]!);
  if (bytes === null) throw new Error(`"${address}" is not an IP address`);
  return Buffer.from(bytes, 'binary');
}

function maskBytes(length: number, prefix: number): Buffer {
  const mask = Buffer.alloc(length);
  for (let bit = 0; bit < prefix; bit += 1) mask[bit >> 3]! |= 0x80 >> (bit & 7);
  return mask;
}

/** True when the address lies inside one of the CIDR ranges. */
export function addressInRanges(address: string, ranges: string[]): boolean {
  const blockList = new net.BlockList();
  for (const range of ranges) {
    const [base, prefix] = range.split('/') as [string, string];
    blockList.addSubnet(base, Number(prefix), net.isIPv4(base) ? 'ipv4' : 'ipv6');
  }
  const plain = address.split('%')[0]!;
  return blockList.check(plain, net.isIPv4(plain) ? 'ipv4' : 'ipv6');
}

/** True when the DNS name is a permitted name, or below one that permits its subtree. */
export function nameInConstraints(name: string, constraints: Pick<NameConstraints, 'dnsNames' | 'exactDnsNames'>): boolean {
  const lower = name.toLowerCase();
  return constraints.exactDnsNames.includes(lower) || constraints.dnsNames.some((permitted) => lower === permitted || lower.endsWith(`.${permitted}`));
}

/** RFC 6761: .invalid is never a real domain. Permitting e-mail and URI names only under it permits none. */
const noRealDomain = '.invalid';

function nameConstraintsExtension(constraints: NameConstraints): Record<string, unknown> {
  const { asn1 } = forge;
  // GeneralName tags: 1 rfc822Name (e-mail), 2 dNSName, 6 uniformResourceIdentifier, 7 iPAddress.
  const subtree = (tag: number, value: string) =>
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, false, value)]);
  const permitted = [
    ...[...constraints.dnsNames, ...constraints.exactDnsNames].map((name) => subtree(2, name)),
    ...constraints.ipRanges.map((range) => {
      const [base, prefix] = range.split('/') as [string, string];
      const mask = maskBytes(ipBytes(base).length, Number(prefix));
      const network = ipBytes(base).map((byte, index) => byte & mask[index]!);
      return subtree(7, Buffer.concat([network, mask]).toString('binary'));
    }),
    // RFC 5280 has no "no e-mail names at all" (an empty constraint means all to Chromium, none to
    // OpenSSL); ".invalid" means "only under .invalid" to OpenSSL, Chromium, Apple and NSS alike.
    subtree(1, noRealDomain),
    subtree(6, noRealDomain),
  ];
  // A leading dot means "names below" (OpenSSL, Chromium, Apple, Go): ".dev" excludes "x.dev", not "dev".
  const excluded = constraints.exactDnsNames.map((name) => subtree(2, `.${name}`));
  return {
    id: '2.5.29.30',
    name: 'nameConstraints',
    critical: true,
    value: asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, permitted),
      ...(excluded.length > 0 ? [asn1.create(asn1.Class.CONTEXT_SPECIFIC, 1, true, excluded)] : []),
    ]),
  };
}

/**
 * A new certificate authority: signs only server certificates for the names and ranges given.
 * Its extended key usage is serverAuth alone, so browsers and mail, code-signing and login
 * clients refuse anything else it signs (S/MIME, code signing, client certificates).
 */
export function createCertificateAuthority(options: { commonName: string; constraints: NameConstraints; now: Date; rsaKeys?: RsaKeySource }): CertificatePair {
  const keys = (options.rsaKeys ?? generateRsaKeys)();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = randomSerialNumber();
  // An hour back, so a phone whose clock is slightly behind still accepts it.
  certificate.validity.notBefore = new Date(options.now.getTime() - 3_600_000);
  certificate.validity.notAfter = new Date(options.now.getTime() + caValidityDays * dayMs);
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'Hearth' },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectKeyIdentifier' },
    nameConstraintsExtension(options.constraints),
  ]);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** A server certificate for the names given, signed by the CA, valid serverValidityDays from now. */
export function createServerCertificate(options: { authority: CertificatePair; names: CertificateNames; now: Date; rsaKeys?: RsaKeySource }): CertificatePair {
  const authorityCertificate = forge.pki.certificateFromPem(options.authority.certificatePem);
  const authorityKey = forge.pki.privateKeyFromPem(options.authority.privateKeyPem);
  const keys = (options.rsaKeys ?? generateRsaKeys)();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = randomSerialNumber();
  certificate.validity.notBefore = new Date(options.now.getTime() - 3_600_000);
  certificate.validity.notAfter = new Date(options.now.getTime() + serverValidityDays * dayMs - 3_600_000);
  certificate.setSubject([{ name: 'commonName', value: options.names.dnsNames[0] ?? 'hearth.local' }]);
  certificate.setIssuer(authorityCertificate.subject.attributes);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authorityCertificate.generateSubjectKeyIdentifier().getBytes() },
    {
      name: 'subjectAltName',
      altNames: [
        ...options.names.dnsNames.map((value) => ({ type: 2, value })),
        ...options.names.ipAddresses.map((ip) => ({ type: 7, ip })),
      ],
    },
  ]);
  certificate.sign(authorityKey, forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** The certificate in DER, the form phones install. */
export function certificateDer(certificatePem: string): Buffer {
  return new crypto.X509Certificate(certificatePem).raw;
}

/** The name constraints written into a CA certificate by createCertificateAuthority. */
export function readNameConstraints(authorityPem: string): NameConstraints {
  const certificate = forge.pki.certificateFromPem(authorityPem);
  type Subtree = { type: number; value: string };
  const extension = certificate.getExtension('nameConstraints') as { permittedSubtrees?: Subtree[]; excludedSubtrees?: Subtree[] } | undefined;
  const excludedBelow = new Set((extension?.excludedSubtrees ?? []).filter((subtree) => subtree.type === 2).map((subtree) => subtree.value.toLowerCase()));
  const constraints: NameConstraints = { dnsNames: [], exactDnsNames: [], ipRanges: [] };
  for (const subtree of extension?.permittedSubtrees ?? []) {
    if (subtree.type === 2) {
      const name = subtree.value.toLowerCase();
      (excludedBelow.has(`.${name}`) ? constraints.exactDnsNames : constraints.dnsNames).push(name);
    }
    if (subtree.type === 7) {
      const bytes = Buffer.from(subtree.value, 'binary');
      const half = bytes.length / 2;
      const address = bytes.subarray(0, half);
      const prefix = [...bytes.subarray(half)].reduce((bits, byte) => bits + byte.toString(2).replaceAll('0', '').length, 0);
      constraints.ipRanges.push(`${forgeIp.bytesToIP(address.toString('binary'))}/${prefix}`);
    }
  }
  return constraints;
}

/** Keeps only the names the CA may sign for; a certificate with one name outside would be refused whole. */
export function namesWithinConstraints(names: CertificateNames, constraints: NameConstraints): { permitted: CertificateNames; refused: string[] } {
  const refused: string[] = [];
  const dnsNames = names.dnsNames.filter((name) => nameInConstraints(name, constraints) || (refused.push(name), false));
  const ipAddresses = names.ipAddresses.filter((ip) => addressInRanges(ip, constraints.ipRanges) || (refused.push(ip), false));
  return { permitted: { dnsNames, ipAddresses }, refused };
}
