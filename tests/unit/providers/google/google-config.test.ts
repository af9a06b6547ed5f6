import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../../src/config/config.js';

test('Google settings: documented defaults, and a bad value names its variable', () => {
  const config = loadConfig({});
  assert.equal(config.gmailAuthPort, 8889);
  assert.equal(config.emailBodyMaxCharacters, 3000);
  assert.equal(config.googleApiRootUrl, undefined, "Google's own addresses unless a test says otherwise");
  assert.equal(loadConfig({ GOOGLE_OAUTH_TOKEN_URL: 'http://127.0.0.1:9/token' }).googleOAuthTokenUrl, 'http://127.0.0.1:9/token', 'the path is kept');
  for (const [variable, value, problem] of [
    ['GMAIL_AUTH_PORT', 'eighty', /not a whole number/],
    ['EMAIL_BODY_MAX_CHARS', '10', /out of range/],
    ['GOOGLE_API_ROOT_URL', 'ftp://x', /not an http or https URL/],
    ['GOOGLE_OAUTH_AUTH_URL', 'not a url', /not an http or https URL/],
  ] as const) {
    assert.throws(() => loadConfig({ [variable]: value }), (error: unknown) => error instanceof ConfigError && error.variable === variable && problem.test(error.message));
  }
});
