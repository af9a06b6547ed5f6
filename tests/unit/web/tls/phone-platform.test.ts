import assert from 'node:assert/strict';
import { test } from 'node:test';
import { phonePlatformOf } from '../../../../src/web/tls/phone-platform.js';

test("the set-up page tells an iPhone, an iPad and an Android phone from a computer by the browser's User-Agent", () => {
  const userAgents: Array<[string, string | undefined]> = [
    ['apple', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'],
    ['apple', 'Mozilla/5.0 (iPad; CPU OS 16_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1'],
    ['android', 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36'],
    ['android', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0'],
    ['other', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'],
    ['other', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'],
    ['other', undefined],
  ];
  assert.deepEqual(
    userAgents.map(([, userAgent]) => phonePlatformOf(userAgent)),
    userAgents.map(([platform]) => platform),
  );
});
