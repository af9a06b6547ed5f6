import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { buildTestApp } from '../support/test-app.js';

// Each test file runs in its own process, so this sees exactly what building the app loads.
const loadedGoogleModules = () => Object.keys(createRequire(import.meta.url).cache).filter((file) => /\/node_modules\/(@googleapis\/gmail|@googleapis\/calendar|googleapis-common|google-auth-library|gaxios)\//.test(file));

test('building the server app registers the Google tools but loads neither the Gmail and Calendar clients nor google-auth-library', async (t) => {
  assert.deepEqual(loadedGoogleModules(), [], 'nothing Google-related before the app is built');
  const { app } = await buildTestApp(t);
  await app.ready();
  // Registered, though not offered to the model until an account is connected.
  const names = (app as unknown as { registry: { all: Array<{ name: string }> } }).registry.all.map((tool) => tool.name);
  for (const name of ['list_email_accounts', 'search_emails', 'read_email', 'create_draft', 'list_events', 'find_free_time']) assert.ok(names.includes(name), `${name} is registered`);
  assert.deepEqual(loadedGoogleModules(), [], 'start-up loaded no Google library');

  // The check can fail: loading the Gmail module is visible in the same list.
  await import('@googleapis/gmail');
  assert.ok(loadedGoogleModules().some((file) => file.includes('/@googleapis/gmail/build/v1.js')));
});
