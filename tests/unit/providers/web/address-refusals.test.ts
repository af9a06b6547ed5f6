import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addressRange, createAddressPolicy } from '../../../../src/providers/web/address-policy.js';
import { fetchGuarded, WebRefusal } from '../../../../src/providers/web/guarded-fetch.js';
import { standinHost, startWebStandin, type WebStandin } from '../../../support/web-standin.js';

/*
 * Reading a page is a request the model chooses: nothing inside the house may be reached. Each
 * refusal is checked against a real server listening on 127.0.0.1, which must see no request.
 */
describe('read_web_page refuses the home network', () => {
  let standin: WebStandin;
  before(async () => {
    standin = await startWebStandin();
  });
  after(() => standin.close());

  const read = (address: string, options: { allowHosts?: string[]; ownPorts?: number[] } = {}) =>
    fetchGuarded(address, {
      policy: createAddressPolicy({ allowHosts: options.allowHosts ?? [], ownPorts: options.ownPorts ?? [] }),
      resolver: standin.resolver,
      acceptsType: () => true,
      limits: { timeoutMs: 3000 },
    });

  async function refused(address: string, reason: RegExp, options?: { allowHosts?: string[]; ownPorts?: number[] }) {
    const before = standin.requested.length;
    await assert.rejects(read(address, options), (error: Error) => {
      assert.ok(error instanceof WebRefusal, `${address}: ${error.message}`);
      assert.match(error.message, reason, address);
      return true;
    });
    assert.equal(standin.requested.length, before, `${address} reached no server`);
  }

  it('refuses loopback in every way it can be written', async () => {
    const port = standin.port;
    for (const address of [
      `http://127.0.0.1:${port}/article`,
      `http://127.9.8.7:${port}/article`,
      `http://2130706433:${port}/article`, // decimal 127.0.0.1
      `http://0x7f.1:${port}/article`, // hexadecimal and short forms
      `http://[::1]:${port}/article`,
      `http://[::ffff:127.0.0.1]:${port}/article`, // IPv4-mapped IPv6
      `http://[0:0:0:0:0:ffff:7f00:1]:${port}/article`,
    ]) {
      await refused(address, /this computer \(loopback\)/);
    }
  });

  it('refuses private, link-local (cloud metadata), unique-local, shared and unspecified addresses', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://10.0.0.1/', /private network/],
      ['http://172.16.5.4/', /private network/],
      ['http://172.31.255.255/', /private network/],
      ['http://192.168.1.1/', /private network/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://[fe80::1]/', /link-local/],
      ['http://[fd00:ec2::254]/', /private network/],
      ['http://[fc00::1]/', /private network/],
      ['http://[::ffff:192.168.0.1]/', /private network/],
      ['http://[::ffff:169.254.169.254]/', /link-local/],
      ['http://100.64.0.1/', /not on the open internet \(carrierGradeNat\)/],
      ['http://0.0.0.0/', /no address/],
      ['http://[::]/', /no address/],
      ['http://224.0.0.1/', /multicast/],
    ];
    for (const [address, reason] of cases) await refused(address, reason);
  });

  it('refuses names of this computer and of the home network before resolving them', async () => {
    await refused('http://localhost/', /this computer/);
    await refused('http://api.localhost/', /this computer/);
    await refused('http://printer.local/', /home network/);
    await refused('http://nas/', /home network/);
    await refused('http://router.home.arpa/', /home network/);
  });

  it('refuses a public-looking name that resolves inside (DNS rebinding), even when only one of its addresses is', async () => {
    await refused(`http://rebind.example:${standin.port}/article`, /rebind\.example \(127\.0\.0\.1\) is this computer/);
    await refused('http://mixed.example/', /mixed\.example \(10\.0\.0\.7\) is on a private network/);
    await refused('http://metadata.example/', /private network/);
  });

  it('checks every redirect: a chain from an allowed host into 127.0.0.1 or the metadata address is refused at that hop', async () => {
    const before = standin.requested.length;
    await assert.rejects(read(`${standin.origin}/redirect-home`, { allowHosts: [standinHost] }), /Not read: 127\.0\.0\.1 is this computer/);
    // The four hops on the allowed name were served; the hop into 127.0.0.1 was not.
    assert.deepEqual(standin.requested.slice(before), ['/redirect-home', '/redirect-home', '/redirect-home', '/redirect-home']);
    await assert.rejects(read(`${standin.origin}/redirect-metadata`, { allowHosts: [standinHost] }), /169\.254\.169\.254 is link-local/);
  });

  it('follows at most 5 redirects', async () => {
    await assert.rejects(read(`${standin.origin}/redirect-loop`, { allowHosts: [standinHost] }), /more than 5 redirects/);
    assert.equal(standin.requested.filter((path) => path === '/redirect-loop').length, 6);
  });

  it('WEB_ALLOW lets a named host through, but never to Hearth’s own ports', async () => {
    const page = await read(`${standin.origin}/notes.txt`, { allowHosts: [standinHost] });
    assert.equal(page.body.toString(), 'Plain notes.\n  Indented line kept.\n');
    await refused(`${standin.origin}/notes.txt`, /port \d+ here is Hearth itself/, { allowHosts: [standinHost], ownPorts: [standin.port] });
    await refused(`http://127.0.0.1:${standin.port}/notes.txt`, /Hearth itself/, { allowHosts: ['127.0.0.1'], ownPorts: [standin.port] });
  });

  it('reads http and https only, and no address with a password in it', async () => {
    for (const address of ['ftp://example.com/file', 'file:///etc/passwd', 'data:text/html,<h1>x</h1>', 'javascript:alert(1)', 'gopher://example.com/']) {
      await refused(address, /only http and https/);
    }
    await refused(`http://user:secret@${standinHost}:${standin.port}/`, /user name or password/, { allowHosts: [standinHost] });
    await assert.rejects(read('not a url'), /is not a web address/);
  });

  it('classifies with ipaddr.js: IPv4 written inside IPv6 is the IPv4 it is', () => {
    assert.equal(addressRange('::ffff:7f00:1'), 'loopback');
    assert.equal(addressRange('[::ffff:10.1.2.3]'), 'private');
    assert.equal(addressRange('93.184.215.14'), 'unicast');
    assert.equal(addressRange('2606:4700::1111'), 'unicast');
  });
});
