import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { buildTestApp, cookieHeader, csrfTokenFrom } from '../support/test-app.js';

async function openSettings(t: TestContext) {
  const harness = await buildTestApp(t);
  const cookies = await harness.login();
  const page = await harness.app.inject({ url: '/settings', headers: { cookie: cookies } });
  const jar = cookieHeader(page.headers['set-cookie'], cookies);
  const post = (payload: Record<string, unknown>, url = '/settings/prompt') =>
    harness.app.inject({ method: 'POST', url, headers: { cookie: jar }, payload: { _csrf: csrfTokenFrom(page.body), ...payload } });
  const get = (url: string) => harness.app.inject({ url, headers: { cookie: jar } });
  return { ...harness, page, post, get };
}

test('/settings holds the system prompt: saved, escaped, and reset to the default', async (t) => {
  const { app, page, post, get } = await openSettings(t);
  assert.equal(page.statusCode, 200);
  const defaultTemplate = app.services.systemPrompt.defaultTemplate;
  assert.match(page.body, /<textarea id="system-prompt-editor" name="template" rows="16">/);
  assert.match(page.body, /<code>\{\{tools\}\}<\/code>/);

  const saved = await post({ template: 'My own prompt </textarea><script>x()</script> {{memory}}' });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, '/settings?saved=prompt');
  assert.equal(await app.services.systemPrompt.readTemplate(), 'My own prompt </textarea><script>x()</script> {{memory}}');
  const after = await get('/settings?saved=prompt');
  assert.match(after.body, /role="status">System prompt saved\.</);
  assert.match(after.body, /My own prompt &lt;\/textarea&gt;&lt;script&gt;x\(\)&lt;\/script&gt; \{\{memory\}\}<\/textarea>/);

  const reset = await post({ template: 'ignored', reset: 'yes' });
  assert.equal(reset.statusCode, 303);
  assert.equal(await app.services.systemPrompt.readTemplate(), defaultTemplate);
});

test('/settings refuses a template that is not text, and the prompt moved off /memory', async (t) => {
  const { post, get } = await openSettings(t);
  const bad = await post({ template: { nested: true } });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /system prompt/);
  assert.equal((await post({ template: 'x' }, '/memory/prompt')).statusCode, 404, 'the old address is gone');
  const memory = await get('/memory');
  assert.doesNotMatch(memory.body, /id="system-prompt-editor"/);
  assert.match(memory.body, /<a href="\/settings">Settings<\/a>/);
});
