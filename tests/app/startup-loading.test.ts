/**
 * What a Hearth that has just started leaves unloaded: the libraries of features nobody has used
 * yet cost memory and start-up time, so each is loaded on its first use. One process per test
 * file, so the packages seen are this file's own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchLoadedPackages } from '../support/loaded-packages.js';

// Before anything under test is imported: the code below is loaded with import().
const loaded = watchLoadedPackages();

/** Loaded only by a feature's first use; none of them by starting, logging in and opening the chat. */
const firstUsePackages = [
  '@modelcontextprotocol/sdk', // MCP servers in mcp.json
  'openai', // an OpenAI-compatible server
  'google-auth-library', // a Google account's first call
  '@googleapis/gmail',
  '@googleapis/calendar',
  'node-forge', // TLS=auto
  'bonjour-service',
  'qrcode-terminal',
  'image-size', // the first photo
  'diff', // the first memory change asked about
  'highlight.js', // the first reply rendered (in the Markdown worker)
  'sanitize-html',
  'duck-duck-scrape', // the first web search (DuckDuckGo)
  'linkedom', // the first web page read (in the page worker)
  '@mozilla/readability',
  'turndown',
];

test('a Hearth that has just started, and has shown its login page, has loaded no ajv; logged in and showing the chat page, no library of a feature not used yet nor the web page reader; a photo loads image-size', async (t) => {
  const { buildTestApp, csrfTokenFrom } = await import('../support/test-app.js');
  const { uploadPhoto } = await import('../support/photo-upload.js');
  const { smallJpeg } = await import('../support/test-photos.js');
  const testApp = await buildTestApp(t);
  await testApp.app.ready();
  // Route schemas are compiled on their route's first request, socket commands' on their first use.
  assert.equal((await loaded.names()).has('ajv'), false, 'a started app has loaded no ajv');
  // The first page anyone opens: its query is empty, so its schema needs no compiling yet.
  const loginPage = await testApp.app.inject({ url: '/login' });
  assert.equal(loginPage.statusCode, 200);
  assert.equal((await loaded.names()).has('ajv'), false, 'the login page, opened without a query, loaded no ajv');
  const cookie = await testApp.login();
  const page = await testApp.app.inject({ url: '/', headers: { cookie } });
  assert.equal(page.statusCode, 200);

  const names = await loaded.names();
  assert.ok(names.has('fastify'), 'the watch sees packages at all');
  assert.deepEqual(
    firstUsePackages.filter((name) => names.has(name)),
    [],
    'loaded at start although their feature was not used',
  );

  // The web tools' address checks (with ipaddr.js), guarded fetch and page reader: on the first page read.
  const webModules = (await loaded.files()).filter((file) => /\/providers\/web\/(address-policy|guarded-fetch|page-extractor)\.[jt]s$/.test(file));
  assert.deepEqual(webModules, [], 'the page reader loaded at start although no page was read');

  const upload = await uploadPhoto(testApp.app, { cookie, token: csrfTokenFrom(page.body) }, smallJpeg);
  assert.equal(upload.statusCode, 201, upload.body);
  assert.equal((await loaded.names()).has('image-size'), true, 'the first photo loaded image-size');
});
