import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findChromium } from '../../support/chromium-path.js';

/** A pretend disk: only these programs exist. */
const onDisk = (...programs: string[]) => (file: string) => programs.includes(file);

test('the browser tests use CHROMIUM_PATH when it is set, and say so when it points nowhere', () => {
  const chosen = '/home/ana/chrome-linux/chrome';
  assert.equal(findChromium({ environment: { CHROMIUM_PATH: chosen }, platform: 'linux', home: '/home/ana', isExecutable: onDisk(chosen, '/usr/bin/chromium') }), chosen);
  assert.throws(
    () => findChromium({ environment: { CHROMIUM_PATH: '/opt/nothing/chrome' }, platform: 'linux', home: '/home/ana', isExecutable: onDisk('/usr/bin/chromium') }),
    /CHROMIUM_PATH is set to "\/opt\/nothing\/chrome", which is not a program this user can run/,
    'a wrong CHROMIUM_PATH is not quietly replaced by another browser',
  );
});

test('without CHROMIUM_PATH the browser is found where each system puts it', () => {
  const linux = (...programs: string[]) => findChromium({ environment: {}, platform: 'linux', home: '/home/ana', isExecutable: onDisk(...programs) });
  assert.equal(linux('/usr/bin/chromium', '/usr/bin/google-chrome'), '/usr/bin/chromium', 'Debian');
  assert.equal(linux('/usr/bin/chromium-browser'), '/usr/bin/chromium-browser', 'Fedora');
  assert.equal(linux('/usr/bin/google-chrome-stable'), '/usr/bin/google-chrome-stable', 'Google Chrome');
  assert.equal(linux('/usr/bin/google-chrome'), '/usr/bin/google-chrome');
  assert.equal(linux('/snap/bin/chromium'), '/snap/bin/chromium', 'Ubuntu snap');
  const mac = (...programs: string[]) => findChromium({ environment: {}, platform: 'darwin', home: '/Users/ana', isExecutable: onDisk(...programs) });
  assert.equal(mac('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'), '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
  assert.equal(mac('/Applications/Chromium.app/Contents/MacOS/Chromium'), '/Applications/Chromium.app/Contents/MacOS/Chromium');
  assert.equal(mac('/Users/ana/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'), '/Users/ana/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
  assert.throws(() => mac('/usr/bin/chromium'), /No Chromium or Google Chrome found/, 'a Linux path is not looked for on macOS');
});

test('with no browser anywhere, one message says how to get one and where it looked', () => {
  assert.throws(
    () => findChromium({ environment: {}, platform: 'linux', home: '/home/ana', isExecutable: () => false }),
    (error: Error) => {
      assert.match(error.message, /No Chromium or Google Chrome found for the browser tests/);
      assert.match(error.message, /set CHROMIUM_PATH/);
      assert.match(error.message, /\/usr\/bin\/chromium, \/usr\/bin\/chromium-browser, .*\/snap\/bin\/chromium/);
      return true;
    },
  );
});
