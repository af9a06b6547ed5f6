import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { test, type TestContext } from 'node:test';
import forge from 'node-forge';
import { createServerCertificate, readNameConstraints, serverValidityDays, type CertificatePair } from '../../../../src/web/tls/certificates.js';
import { createLocalTls, tlsFilePaths, type LocalTlsSources } from '../../../../src/web/tls/local-tls.js';
import type { NetworkInterfaces } from '../../../../src/web/tls/machine-names.js';
import { readyMadeRsaKeys } from '../../../support/test-rsa-keys.js';

const dayMs = 86_400_000;

function temporaryDataDir(t: TestContext): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-tls-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

function interfacesWith(...addresses: string[]): NetworkInterfaces {
  return {
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
    eth0: addresses.map((address) =>
      address.includes(':')
        ? { address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6' as const, mac: '02:00:00:00:00:01', internal: false, cidr: `${address}/64`, scopeid: 0 }
        : { address, netmask: '255.255.255.0', family: 'IPv4' as const, mac: '02:00:00:00:00:01', internal: false, cidr: `${address}/24` },
    ),
  };
}

/** The machine under test; keys come ready-made (the first test makes its own, as Hearth does). */
function sources(overrides: Partial<LocalTlsSources> = {}): LocalTlsSources {
  return {
    now: () => new Date(),
    networkInterfaces: () => interfacesWith('192.168.1.20', 'fd00::20', 'fe80::1'),
    hostname: () => 'Testbox',
    rsaKeys: readyMadeRsaKeys,
    ...overrides,
  };
}

test('the local CA is a 10-year, name-constrained CA named after the machine; keys are readable by the owner only', (t) => {
  const dataDir = temporaryDataDir(t);
  // No rsaKeys: the keys are made as Hearth makes them, fresh 2048-bit RSA pairs.
  const local = createLocalTls({ dataDir, extraNames: [], sources: sources({ rsaKeys: undefined }) });
  const authority = new crypto.X509Certificate(local.authorityCertificatePem);
  assert.equal(authority.ca, true);
  assert.match(authority.subject, /CN=Hearth local CA \(Testbox\)/);
  const years = (Date.parse(authority.validTo) - Date.parse(authority.validFrom)) / (365 * dayMs);
  assert.ok(years > 9.9 && years < 10.1, `CA valid for ${years} years`);
  const constraints = readNameConstraints(local.authorityCertificatePem);
  for (const name of ['local', 'localhost', 'home.arpa', 'lan', 'internal']) assert.ok(constraints.dnsNames.includes(name), name);
  assert.deepEqual(constraints.exactDnsNames, ['testbox'], 'the host name alone, not the names below it');
  for (const range of ['192.168.0.0/16', '10.0.0.0/8', 'fc00::/7']) assert.ok(constraints.ipRanges.includes(range), range);

  const files = tlsFilePaths(dataDir);
  for (const keyFile of [files.authorityKey, files.serverKey]) assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600, keyFile);
  const keys = [files.authorityKey, files.serverKey].map((keyFile) => crypto.createPrivateKey(fs.readFileSync(keyFile, 'utf8')));
  for (const key of keys) assert.deepEqual([key.asymmetricKeyType, key.asymmetricKeyDetails?.modulusLength], ['rsa', 2048]);
  assert.equal(keys[0]!.equals(keys[1]!), false, 'the CA and the server certificate have keys of their own');
  assert.equal(fs.readFileSync(files.authorityCertificate, 'utf8'), local.authorityCertificatePem);
});

test('the server certificate covers every LAN address and name, is for servers only, and lasts at most 397 days', (t) => {
  const local = createLocalTls({ dataDir: temporaryDataDir(t), extraNames: ['hearth.home.arpa'], sources: sources() });
  const server = new crypto.X509Certificate(local.current().certificatePem);
  const authority = new crypto.X509Certificate(local.authorityCertificatePem);
  assert.ok(server.checkIssued(authority) && server.verify(authority.publicKey));
  assert.equal(server.ca, false);
  assert.deepEqual(server.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  const days = (Date.parse(server.validTo) - Date.parse(server.validFrom)) / dayMs;
  assert.ok(days <= serverValidityDays, `valid for ${days} days`);
  for (const name of ['hearth.local', 'testbox', 'testbox.local', 'localhost', 'hearth.home.arpa']) {
    assert.equal(server.checkHost(name, { subject: 'never' }), name, name);
  }
  for (const ip of ['127.0.0.1', '::1', '192.168.1.20', 'fd00::20']) assert.ok(server.checkIP(ip), ip);
  assert.equal(server.checkIP('fe80::1'), undefined, 'link-local addresses cannot be used in a URL');
  assert.equal(server.checkHost('example.com', { subject: 'never' }), undefined);
});

test('a second start reuses the CA and the certificate while they are good', (t) => {
  const dataDir = temporaryDataDir(t);
  const first = createLocalTls({ dataDir, extraNames: [], sources: sources() });
  const second = createLocalTls({ dataDir, extraNames: [], sources: sources() });
  assert.equal(second.authorityCertificatePem, first.authorityCertificatePem);
  assert.equal(second.current().certificatePem, first.current().certificatePem);
  assert.equal(second.renewIfDue(), undefined);
  assert.equal(first.madeAtStart, 'no server certificate yet');
  assert.equal(second.madeAtStart, undefined);
});

test('a certificate with fewer than 30 days left is replaced; one with more is kept', (t) => {
  const dataDir = temporaryDataDir(t);
  const realNow = Date.now();
  // Made 360 days ago: 37 days left, so it stays.
  const made = createLocalTls({ dataDir, extraNames: [], sources: sources({ now: () => new Date(realNow - 360 * dayMs) }) });
  const kept = createLocalTls({ dataDir, extraNames: [], sources: sources() });
  assert.equal(kept.current().certificatePem, made.current().certificatePem);

  // Eight days later only 29 are left: renewed, by the same CA, valid from now.
  let now = new Date(realNow + 8 * dayMs);
  const later = createLocalTls({ dataDir, extraNames: [], sources: sources({ now: () => now }) });
  const renewed = new crypto.X509Certificate(later.current().certificatePem);
  assert.notEqual(renewed.serialNumber, new crypto.X509Certificate(made.current().certificatePem).serialNumber);
  assert.equal(later.authorityCertificatePem, made.authorityCertificatePem);
  assert.ok(Date.parse(renewed.validTo) > now.getTime() + 390 * dayMs);
  assert.equal(fs.readFileSync(tlsFilePaths(dataDir).serverCertificate, 'utf8'), later.current().certificatePem);

  // And the check on a running server says why.
  now = new Date(now.getTime() + 380 * dayMs);
  assert.match(later.renewIfDue() ?? '', /expires in \d+ days/);
});

test('a new LAN address renews the certificate to cover it; an address the CA may not sign is left out', (t) => {
  const dataDir = temporaryDataDir(t);
  let interfaces = interfacesWith('192.168.1.20');
  const local = createLocalTls({ dataDir, extraNames: [], sources: sources({ networkInterfaces: () => interfaces }) });
  assert.equal(local.renewIfDue(), undefined);

  interfaces = interfacesWith('192.168.1.20', '10.0.0.7', '203.0.113.9');
  assert.match(local.renewIfDue() ?? '', /names changed.*10\.0\.0\.7/);
  const server = new crypto.X509Certificate(local.current().certificatePem);
  assert.ok(server.checkIP('10.0.0.7'));
  assert.equal(server.checkIP('203.0.113.9'), undefined);
  assert.deepEqual(local.names().refused, ['203.0.113.9']);
  // Refused names do not make it renew on every check.
  assert.equal(local.renewIfDue(), undefined);
});

test('addresses the machine has when the CA is made are permitted even outside home ranges (a public IPv4, a global IPv6 prefix)', (t) => {
  let interfaces = interfacesWith('198.51.100.4', '2001:db8:1:2::9');
  const local = createLocalTls({ dataDir: temporaryDataDir(t), extraNames: [], sources: sources({ networkInterfaces: () => interfaces }) });
  const first = new crypto.X509Certificate(local.current().certificatePem);
  assert.ok(first.checkIP('198.51.100.4') && first.checkIP('2001:db8:1:2::9'));
  assert.deepEqual(local.names().refused, []);
  // A new address in the same IPv6 /64 (privacy addresses rotate) is covered; another prefix is not.
  interfaces = interfacesWith('198.51.100.4', '2001:db8:1:2::77', '2001:db8:9::1');
  assert.match(local.renewIfDue() ?? '', /2001:db8:1:2::77/);
  assert.ok(new crypto.X509Certificate(local.current().certificatePem).checkIP('2001:db8:1:2::77'));
  assert.deepEqual(local.names().refused, ['2001:db8:9::1']);
});

test('even with its key, the local CA cannot vouch for a public site: TLS clients refuse it (name constraints)', async (t) => {
  const dataDir = temporaryDataDir(t);
  const local = createLocalTls({ dataDir, extraNames: [], sources: sources() });
  const files = tlsFilePaths(dataDir);
  const authority = { certificatePem: local.authorityCertificatePem, privateKeyPem: fs.readFileSync(files.authorityKey, 'utf8') };
  const rogue = createServerCertificate({ authority, names: { dnsNames: ['bank.example.com'], ipAddresses: [] }, now: new Date(), rsaKeys: readyMadeRsaKeys });

  const connectTo = async (pair: { certificatePem: string; privateKeyPem: string }, servername: string) => {
    const server = tls.createServer({ cert: pair.certificatePem, key: pair.privateKeyPem }, (socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const { port } = server.address() as import('node:net').AddressInfo;
    return new Promise<string>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: local.authorityCertificatePem }, () => {
        socket.end();
        resolve('trusted');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code} ${error.message}`));
    });
  };
  assert.match(await connectTo(rogue, 'bank.example.com'), /PERMITTED_VIOLATION|permitted subtree/i);
  assert.equal(await connectTo(local.current(), 'hearth.local'), 'trusted');
});

test('half a CA on disk (key lost) stops start-up with a clear message instead of silently making a new CA', (t) => {
  const dataDir = temporaryDataDir(t);
  createLocalTls({ dataDir, extraNames: [], sources: sources() });
  fs.rmSync(tlsFilePaths(dataDir).authorityKey);
  assert.throws(() => createLocalTls({ dataDir, extraNames: [], sources: sources() }), /half a CA/);
});

/** A certificate signed with the CA's key for anything an attacker holding that key might want. */
function signWithAuthority(
  authority: CertificatePair,
  leaf: { altNames: Array<{ type: number; value?: string; ip?: string }>; usage: Record<string, boolean> },
): string {
  const issuer = forge.pki.certificateFromPem(authority.certificatePem);
  const keys = readyMadeRsaKeys();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = '01' + crypto.randomBytes(8).toString('hex');
  certificate.validity.notBefore = new Date(Date.now() - 3_600_000);
  certificate.validity.notAfter = new Date(Date.now() + 30 * dayMs);
  certificate.setSubject([{ name: 'commonName', value: 'rogue' }]);
  certificate.setIssuer(issuer.subject.attributes);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', ...leaf.usage },
    { name: 'subjectAltName', altNames: leaf.altNames },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(authority.privateKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(certificate);
}

/** `openssl verify` of one certificate against the CA alone, for one purpose: "OK" or openssl's reason. */
function opensslVerify(dataDir: string, authorityPem: string, certificatePem: string, purpose: string): string {
  const authorityFile = path.join(dataDir, 'authority-under-test.pem');
  fs.writeFileSync(authorityFile, authorityPem);
  const result = spawnSync('openssl', ['verify', '-CAfile', authorityFile, '-purpose', purpose], { input: certificatePem, encoding: 'utf8' });
  if (result.error) throw result.error;
  return result.status === 0 ? 'OK' : `${result.stdout}${result.stderr}`.replace(/\s+/g, ' ');
}

test('even with its key, the local CA vouches only for web servers: e-mail, URI, client-login and code-signing certificates fail to verify', (t) => {
  const dataDir = temporaryDataDir(t);
  const local = createLocalTls({ dataDir, extraNames: [], sources: sources() });
  const authority = { certificatePem: local.authorityCertificatePem, privateKeyPem: fs.readFileSync(tlsFilePaths(dataDir).authorityKey, 'utf8') };
  const verify = (certificatePem: string, purpose: string) => opensslVerify(dataDir, authority.certificatePem, certificatePem, purpose);

  // What Hearth itself makes verifies as a web server.
  assert.equal(verify(local.current().certificatePem, 'sslserver'), 'OK');
  // Extended key usage: the CA's is serverAuth alone (browsers, Windows, Apple and OpenSSL require
  // every CA in the chain to allow the leaf's use), and so is the leaf's.
  const serverAuth = '1.3.6.1.5.5.7.3.1';
  assert.deepEqual(new crypto.X509Certificate(authority.certificatePem).keyUsage, [serverAuth]);
  assert.deepEqual(new crypto.X509Certificate(local.current().certificatePem).keyUsage, [serverAuth]);

  const homeName = { type: 2, value: 'testbox.local' };
  const mail = signWithAuthority(authority, { altNames: [{ type: 1, value: 'someone@gmail.com' }], usage: { emailProtection: true } });
  // "any" skips the usage check: the e-mail name alone is refused, by the name constraints.
  assert.match(verify(mail, 'any'), /permitted subtree violation/);
  assert.notEqual(verify(mail, 'smimesign'), 'OK');
  const mailUsageOnly = signWithAuthority(authority, { altNames: [homeName], usage: { emailProtection: true } });
  assert.match(verify(mailUsageOnly, 'smimesign'), /unsuitable certificate purpose/);
  const uri = signWithAuthority(authority, { altNames: [homeName, { type: 6, value: 'https://bank.example.com/' }], usage: { serverAuth: true } });
  assert.match(verify(uri, 'any'), /permitted subtree violation/);
  const clientLogin = signWithAuthority(authority, { altNames: [homeName], usage: { clientAuth: true } });
  assert.match(verify(clientLogin, 'sslclient'), /unsuitable certificate purpose/);
  const codeSigning = signWithAuthority(authority, { altNames: [homeName], usage: { codeSigning: true } });
  // OpenSSL before 3.2 has no code-signing purpose; there the CA's usages above are what Windows and Apple check.
  const codeSigningCheck = verify(codeSigning, 'codesign');
  if (!/Invalid purpose/i.test(codeSigningCheck)) assert.match(codeSigningCheck, /unsuitable certificate purpose/);
});

test('a machine named like a public suffix ("dev") makes the CA valid for that name alone, not for every .dev site', (t) => {
  const dataDir = temporaryDataDir(t);
  const local = createLocalTls({ dataDir, extraNames: ['hearth.example.com'], sources: sources({ hostname: () => 'dev' }) });
  const authority = { certificatePem: local.authorityCertificatePem, privateKeyPem: fs.readFileSync(tlsFilePaths(dataDir).authorityKey, 'utf8') };
  const verify = (dnsName: string) =>
    opensslVerify(dataDir, authority.certificatePem, createServerCertificate({ authority, names: { dnsNames: [dnsName], ipAddresses: [] }, now: new Date(), rsaKeys: readyMadeRsaKeys }).certificatePem, 'sslserver');

  assert.equal(new crypto.X509Certificate(local.current().certificatePem).checkHost('dev', { subject: 'never' }), 'dev', 'the machine is still reachable as "dev"');
  assert.equal(verify('dev'), 'OK');
  assert.match(verify('google.dev'), /excluded subtree violation/);
  // A TLS_NAMES entry is permitted alone too.
  assert.equal(verify('hearth.example.com'), 'OK');
  assert.match(verify('www.hearth.example.com'), /excluded subtree violation/);
  // Home suffixes keep their whole subtree.
  assert.equal(verify('nas.home.arpa'), 'OK');

  // A multi-label host name outside the home suffixes is not permitted at all.
  const other = createLocalTls({ dataDir: temporaryDataDir(t), extraNames: [], sources: sources({ hostname: () => 'box.example.com' }) });
  assert.deepEqual(other.names().refused, ['box.example.com']);
  assert.ok(new crypto.X509Certificate(other.current().certificatePem).checkHost('box.local', { subject: 'never' }));
});
