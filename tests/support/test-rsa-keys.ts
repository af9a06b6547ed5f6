import fs from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import { projectRoot } from '../../src/config/project-root.js';
import type { RsaKeySource } from '../../src/web/tls/certificates.js';

/*
 * Ready-made 2048-bit RSA key pairs for TLS tests (tests/support/tls/rsa-keys.pem, not secret):
 * making a fresh one costs 0.1 to 0.5 s of CPU, and the TLS tests made about forty. One test
 * (tests/unit/web/tls/tls-certificates.test.ts, the first) still makes its keys the real way.
 */
let pairs: forge.pki.rsa.KeyPair[] | undefined;
let next = 0;

function readPairs(): forge.pki.rsa.KeyPair[] {
  const text = fs.readFileSync(path.join(projectRoot, 'tests', 'support', 'tls', 'rsa-keys.pem'), 'utf8');
  return (text.match(/-----BEGIN PRIVATE KEY-----[^-]+-----END PRIVATE KEY-----/g) ?? []).map((pem) => {
    const privateKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
    return { privateKey, publicKey: forge.pki.setRsaPublicKey(privateKey.n, privateKey.e) };
  });
}

/** Hands out the ready-made pairs in turn, so a CA and the certificate it signs never share a key. */
export const readyMadeRsaKeys: RsaKeySource = () => {
  pairs ??= readPairs();
  const pair = pairs[next % pairs.length]!;
  next += 1;
  return pair;
};
