/**
 * Installing Hearth on a phone: the manifest, its icons, the service worker and the offline page
 * load without logging in, say what a browser needs, and the worker is only registered where the
 * browser allows one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../src/config/project-root.js';
import { buildTestApp } from '../support/test-app.js';

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk (always the first, right after the signature). */
function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.ok(bytes.subarray(0, 8).equals(pngSignature), 'a PNG signature');
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR', 'an IHDR chunk first');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

interface ManifestIcon {
  src: string;
  sizes: string;
  type: string;
  purpose: string;
}

test('the manifest loads without logging in and names Hearth, its start page and its colours', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/manifest.webmanifest' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/manifest\+json/);
  const manifest = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(manifest.name, 'Hearth');
  assert.equal(typeof manifest.short_name, 'string');
  assert.ok((manifest.short_name as string).length > 0 && (manifest.short_name as string).length <= 12, 'a short name fits under an icon');
  assert.equal(manifest.start_url, '/');
  assert.equal(manifest.display, 'standalone');
  // The colours are app.css's own palette, not made-up ones.
  const css = fs.readFileSync(path.join(projectRoot, 'public', 'app.css'), 'utf8');
  for (const key of ['background_color', 'theme_color']) {
    const colour = manifest[key] as string;
    assert.match(colour, /^#[0-9a-f]{6}$/i, key);
    assert.ok(css.includes(colour), `${key} ${colour} is a colour from app.css`);
  }
});

test('every icon in the manifest is a PNG of the size it claims, with "any" and "maskable" both offered', async (t) => {
  const { app } = await buildTestApp(t);
  const manifest = JSON.parse((await app.inject({ method: 'GET', url: '/manifest.webmanifest' })).body) as { icons: ManifestIcon[] };
  const pngIcons = manifest.icons.filter((icon) => icon.type === 'image/png');
  const purposes = new Set(pngIcons.flatMap((icon) => icon.purpose.split(' ')));
  assert.ok(purposes.has('any') && purposes.has('maskable'), 'both purposes');
  const sizes = new Set(pngIcons.filter((icon) => icon.purpose.includes('any')).map((icon) => icon.sizes));
  assert.ok(sizes.has('192x192') && sizes.has('512x512'), '192 and 512 icons');
  assert.ok(pngIcons.some((icon) => icon.purpose.includes('maskable') && icon.sizes === '512x512'), 'a 512 maskable icon');

  for (const icon of manifest.icons) {
    const response = await app.inject({ method: 'GET', url: icon.src });
    assert.equal(response.statusCode, 200, icon.src);
    assert.equal(response.headers['content-type'], icon.type, icon.src);
    if (icon.type !== 'image/png') continue;
    const [width, height] = icon.sizes.split('x').map(Number);
    assert.deepEqual(pngSize(response.rawPayload), { width, height }, icon.src);
  }
});

test('the page head offers the manifest, an apple-touch-icon of 180 pixels and light and dark theme colours', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/login' });
  assert.match(page.body, /<link rel="manifest" href="\/manifest\.webmanifest">/);
  const touchIcon = /<link rel="apple-touch-icon" href="([^"]+)">/.exec(page.body);
  assert.ok(touchIcon, 'an apple-touch-icon link');
  const icon = await app.inject({ method: 'GET', url: touchIcon[1]! });
  assert.equal(icon.statusCode, 200);
  assert.deepEqual(pngSize(icon.rawPayload), { width: 180, height: 180 });
  assert.match(page.body, /<meta name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: light\)">/);
  assert.match(page.body, /<meta name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: dark\)">/);
  assert.match(page.body, /<script src="\/static\/install\.js" defer><\/script>/);
});

test('the service worker is served from the site root as JavaScript, without logging in, and nothing can be posted there', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/sw.js' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/javascript/);
  assert.equal(response.headers['service-worker-allowed'], undefined, 'at the root, no wider scope needs allowing');
  assert.equal(response.headers['cache-control'], 'no-cache', 'a new version is picked up on the next visit');
  assert.match(response.body, /addEventListener\('fetch'/);
  // A cross-origin check stops posts before routing (403); with our own origin there is still no such route (404).
  const post = await app.inject({ method: 'POST', url: '/sw.js', headers: { origin: 'http://localhost:80', host: 'localhost:80' } });
  assert.ok([404, 405].includes(post.statusCode), `POST /sw.js answered ${post.statusCode}`);
});

test('the offline page and what it needs load without logging in, under the page security policy', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/static/offline.html' });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Hearth cannot be reached/);
  assert.match(page.body, /on the same Wi-Fi/);
  assert.match(page.body, /<a class="offline-retry" id="offline-retry" href="">Retry<\/a>/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  assert.doesNotMatch(page.body, /<script|style=/, 'no inline script or style (the policy would block them)');
  // Every file the worker caches must exist, or its install fails and nothing works offline.
  const worker = (await app.inject({ method: 'GET', url: '/sw.js' })).body;
  const list = /const offlineFiles = \[([^\]]+)\]/.exec(worker);
  assert.ok(list, 'the worker lists its offline files');
  const files = [...list[1]!.matchAll(/'([^']+)'|offlinePage/g)].map((match) => match[1] ?? '/static/offline.html');
  assert.ok(files.includes('/static/offline.html') && files.length >= 2, files.join(', '));
  for (const file of files) {
    assert.equal((await app.inject({ method: 'GET', url: file })).statusCode, 200, file);
  }
});

test('the manifest and the service worker never send a session cookie, so fetching them during a login cannot undo it', async (t) => {
  const testApp = await buildTestApp(t);
  const cookies = await testApp.login();
  for (const url of ['/manifest.webmanifest', '/sw.js']) {
    const response = await testApp.app.inject({ method: 'GET', url, headers: { cookie: cookies } });
    assert.equal(response.statusCode, 200, url);
    assert.equal(response.headers['set-cookie'], undefined, url);
  }
  // The session itself is untouched: still logged in.
  assert.equal((await testApp.app.inject({ method: 'GET', url: '/', headers: { cookie: cookies } })).statusCode, 200);
});
