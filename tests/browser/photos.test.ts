/**
 * Photos on a phone: a large PNG picked through the file input is shrunk in the browser to a
 * JPEG of at most 1,600 px, shown in the tray, refused for a model that cannot see (before
 * sending, naming the one that can), then sent to that model as Ollama `images`; the thumbnail
 * stays in the thread after a reload and opens the whole photo.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { imageSize } from 'image-size';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser } from '../support/browser.js';
import { openChat, waitFor, waitForReplyEnd, waitForSocket } from '../support/chat-page.js';
import { defaultModels } from '../support/ollama-standin.js';
import { solidPng } from '../support/test-photos.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };
/** Set HEARTH_SCREENSHOTS to a folder to keep pictures of the photo UI for a person to look at. */
const shots = process.env.HEARTH_SCREENSHOTS;

test('a photo from the gallery is shrunk, refused for a blind model, sent to a vision model and kept in the thread', async (t) => {
  const { test: testApp, baseUrl, page } = await openChat(t, browser, {
    app: { standin: { models: [...defaultModels(), { name: 'llava:latest', capabilities: ['completion', 'vision'] }] } },
    context: phone,
  });
  const { standin } = testApp;

  // A real 2400×1800 PNG, drawn on a canvas as a camera photo would be big, saved as a file to pick.
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-photos-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const pngBase64 = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 2400;
    canvas.height = 1800;
    const context = canvas.getContext('2d')!;
    const gradient = context.createLinearGradient(0, 0, 2400, 1800);
    gradient.addColorStop(0, '#d9480f');
    gradient.addColorStop(1, '#1c7ed6');
    context.fillStyle = gradient;
    context.fillRect(0, 0, 2400, 1800);
    context.fillStyle = '#ffffff';
    context.beginPath();
    context.arc(1200, 900, 500, 0, Math.PI * 2);
    context.fill();
    return canvas.toDataURL('image/png').slice('data:image/png;base64,'.length);
  });
  const bigPhoto = path.join(folder, 'sunset.png');
  fs.writeFileSync(bigPhoto, Buffer.from(pngBase64, 'base64'));
  assert.deepEqual(imageSize(fs.readFileSync(bigPhoto)), { width: 2400, height: 1800, type: 'png' });
  const notAPhoto = path.join(folder, 'notes.png');
  fs.writeFileSync(notAPhoto, 'these are words, not pixels');

  // The picker marks the model that can see; the chat starts on one that cannot.
  assert.equal(await page.locator('#model-select').inputValue(), 'llama3.2:latest');
  assert.equal(await page.locator('#model-select option[data-vision]').getAttribute('value'), 'llava:latest');
  await page.locator('#photo-attach').waitFor({ state: 'visible' });

  // Something that is not a photo is said so, and nothing is left in the tray.
  await page.locator('#photo-input').setInputFiles(notAPhoto);
  await page.locator('#photo-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#photo-error').innerText(), '“notes.png” is not a photo this browser can open. Attach a JPEG, PNG or WebP image.');
  assert.equal(await page.locator('.photo-tray-item').count(), 0);

  // Two photos picked; the second one removed again with its ✕.
  await page.locator('#photo-input').setInputFiles([bigPhoto, bigPhoto]);
  await waitFor(page, () => document.querySelectorAll('.photo-tray-item:not(.is-uploading)').length === 2);
  await page.locator('.photo-tray-item').nth(1).locator('.photo-remove').tap();
  assert.equal(await page.locator('.photo-tray-item').count(), 1);
  const attachedIds = await page.locator('#photo-ids').inputValue();
  assert.match(attachedIds, /^\d+$/);
  const storedCount = () => (testApp.database.prepare('SELECT count(*) AS count FROM attachments').get() as { count: number }).count;
  for (let tries = 0; storedCount() !== 1 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(storedCount(), 1, 'the removed photo was deleted on the server');

  // llama3.2 cannot see: said before sending, with the model that can; Send does nothing.
  const refusal = 'llama3.2 cannot see photos. Models here that can: llava';
  assert.equal(await page.locator('#photo-error').innerText(), refusal);
  await page.locator('#chat-input').fill('What is in this photo?');
  await page.locator('#chat-send').tap();
  if (shots) await page.screenshot({ path: path.join(shots, 'photos-refused-390.png') });
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0, 'nothing was sent');
  assert.equal(standin.requests.length, 0);

  // Switching to llava clears the warning; the message goes with its photo.
  await page.locator('#model-select').selectOption('llava:latest');
  assert.equal(await page.locator('#photo-error').isVisible(), false);
  standin.enqueue({ content: 'An orange-to-blue gradient with a white circle.' });
  await page.locator('#chat-send').tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 1);
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('.photo-tray-item').count(), 0, 'the tray is empty once sent');
  assert.equal(await page.locator('#photo-ids').inputValue(), '');

  // The model got the shrunk JPEG, exactly as stored.
  const lastTurn = (standin.requests[0]!.body.messages as Array<{ role: string; content: string; images?: string[] }>).at(-1)!;
  assert.equal(lastTurn.content, 'What is in this photo?');
  assert.equal(lastTurn.images?.length, 1);
  const sent = Buffer.from(lastTurn.images![0]!, 'base64');
  assert.deepEqual([...sent.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  const size = imageSize(sent);
  assert.deepEqual({ width: size.width, height: size.height }, { width: 1600, height: 1200 });
  const stored = testApp.database.prepare('SELECT bytes, width, height FROM attachments WHERE id = ?').get(Number(attachedIds)) as { bytes: Buffer; width: number; height: number };
  assert.ok(stored.bytes.equals(sent));
  assert.ok(sent.length < fs.statSync(bigPhoto).size, `shrunk: ${sent.length} bytes from ${fs.statSync(bigPhoto).size}`);
  t.diagnostic(`2400×1800 PNG of ${fs.statSync(bigPhoto).size} bytes sent as a 1600×1200 JPEG of ${sent.length} bytes`);

  // After a reload the thumbnail is still in the person's message, loaded through the session.
  await page.reload();
  await waitForSocket(page);
  const thumbnail = page.locator('#chat-thread .chat-message-user .message-photo img');
  await thumbnail.waitFor({ state: 'visible' });
  // The thread shows the 480 px thumbnail the browser made; the whole photo is a tap away.
  await waitFor(page, () => (document.querySelector('.message-photo img') as HTMLImageElement | null)?.naturalWidth === 480);
  assert.equal(await thumbnail.getAttribute('src'), `/attachments/${attachedIds}/thumbnail`);
  const thumbnailBytes = testApp.database.prepare('SELECT length(thumbnail) AS size FROM attachments WHERE id = ?').get(Number(attachedIds)) as { size: number };
  t.diagnostic(`thumbnail in the thread: ${thumbnailBytes.size} bytes`);
  const box = (await thumbnail.boundingBox())!;
  assert.ok(box.width <= 220 && box.width > 50 && box.x + box.width <= 390, `a thumbnail on the screen: ${JSON.stringify(box)}`);
  if (shots) await page.screenshot({ path: path.join(shots, 'photos-thread-390.png') });

  // Tapping it opens the whole photo.
  const [opened] = await Promise.all([page.context().waitForEvent('page'), thumbnail.tap()]);
  await opened!.waitForLoadState();
  assert.equal(new URL(opened!.url()).pathname, `/attachments/${attachedIds}`);
  assert.equal(await opened!.evaluate(() => document.contentType), 'image/jpeg');
  await opened!.close();

  // A photo alone, with no words, is a message too.
  await page.locator('#photo-input').setInputFiles(bigPhoto);
  await waitFor(page, () => document.querySelectorAll('.photo-tray-item:not(.is-uploading)').length === 1);
  assert.equal(await page.locator('#photo-error').isVisible(), false, 'llava is still picked: no warning');
  standin.enqueue({ content: 'The same picture again.' });
  await page.locator('#chat-send').tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 2);
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('#chat-thread .chat-message-user').last().locator('.message-photo img').count(), 1);
  const photoOnly = (standin.requests[1]!.body.messages as Array<{ role: string; content: string; images?: string[] }>).at(-1)!;
  assert.deepEqual([photoOnly.role, photoOnly.content, photoOnly.images?.length], ['user', '', 1]);
  assertNoPageErrors(page);
  void baseUrl;
});

test('more than four photos are cut to four with a message, and Send during uploads waits for them', async (t) => {
  const { test: testApp, page } = await openChat(t, browser, {
    app: { standin: { models: [{ name: 'llava:latest', capabilities: ['completion', 'vision'] }] } },
    context: phone,
  });
  const { standin } = testApp;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-photos-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const files = Array.from({ length: 5 }, (_, index) => {
    const file = path.join(folder, `small-${index}.png`);
    fs.writeFileSync(file, solidPng(40, 30, { rgb: [index * 50, 100, 200] }));
    return file;
  });

  // Uploads are held until the test lets them go, so "Send while uploading" is not a race.
  const held: Array<() => Promise<void>> = [];
  await page.route('**/attachments', (route) => {
    held.push(() => route.continue());
  });
  await page.locator('#photo-input').setInputFiles(files);
  assert.equal(await page.locator('.photo-tray-item').count(), 4);
  assert.equal(await page.locator('#photo-error').innerText(), 'At most 4 photos can go with one message; 1 left out.');
  await waitFor(page, () => document.querySelectorAll('.photo-tray-item.is-uploading').length === 4);
  await page.emulateMedia({ colorScheme: 'dark' });
  if (shots) await page.screenshot({ path: path.join(shots, 'photos-tray-uploading-dark-390.png') });

  await page.locator('#chat-input').fill('Four colours');
  await page.locator('#chat-send').tap();
  while (held.length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0, 'not sent while the photos upload');
  assert.equal(await page.locator('#chat-form.is-waiting-for-photos').count(), 1, 'Send shows it is waiting');
  for (const release of held) await release();
  await page.unroute('**/attachments');

  // Sent by itself once the last upload finished.
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 1);
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('#chat-thread .chat-message-user .message-photo').count(), 4);
  const lastTurn = (standin.requests[0]!.body.messages as Array<{ content: string; images?: string[] }>).at(-1)!;
  assert.equal(lastTurn.content, 'Four colours');
  assert.equal(lastTurn.images?.length, 4);
  assertNoPageErrors(page);
});
