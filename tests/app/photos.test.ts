/**
 * Photos for vision models, on the server: uploading (and what is refused), serving only to a
 * logged-in session, sending them to the model as Ollama `images`, and refusing a model that
 * cannot see. The browser side is in tests/browser/photos.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createAttachmentStore } from '../../src/storage/attachment-store.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { defaultModels } from '../support/ollama-standin.js';
import { buildTestApp, csrfTokenFrom, startChatHarness, type TestApp } from '../support/test-app.js';
import { uploadPhoto } from '../support/photo-upload.js';
import { smallJpeg, solidPng } from '../support/test-photos.js';

const visionModels = () => [...defaultModels(), { name: 'llava:latest', capabilities: ['completion', 'vision'] }, { name: 'gemma3:latest', capabilities: ['completion', 'vision'] }];

/** A logged-in session and its CSRF token, read from the chat page as the browser would. */
async function loggedIn(testApp: TestApp): Promise<{ cookie: string; token: string }> {
  const cookie = await testApp.login();
  const page = await testApp.app.inject({ url: '/', headers: { cookie } });
  return { cookie, token: csrfTokenFrom(page.body) };
}

const countAttachments = (testApp: TestApp) => (testApp.database.prepare('SELECT count(*) AS count FROM attachments').get() as { count: number }).count;

test('a photo uploads, is stored with its size, and is served only to a logged-in session', async (t) => {
  const testApp = await buildTestApp(t);
  const session = await loggedIn(testApp);
  const response = await uploadPhoto(testApp.app, session, smallJpeg);
  assert.equal(response.statusCode, 201, response.body);
  const uploaded = response.json() as { id: number; url: string; width: number; height: number; size: number };
  assert.deepEqual({ width: uploaded.width, height: uploaded.height, size: uploaded.size }, { width: 12, height: 8, size: smallJpeg.length });

  const served = await testApp.app.inject({ url: uploaded.url, headers: { cookie: session.cookie } });
  assert.equal(served.statusCode, 200);
  assert.equal(served.headers['content-type'], 'image/jpeg');
  assert.equal(served.headers['x-content-type-options'], 'nosniff');
  assert.match(String(served.headers['cache-control']), /^private\b/);
  assert.ok(served.rawPayload.equals(smallJpeg), 'the bytes come back unchanged');

  // Logged out: the photo is not served, and nothing can be uploaded.
  const anonymous = await testApp.app.inject({ url: uploaded.url });
  assert.equal(anonymous.statusCode, 302);
  assert.match(String(anonymous.headers.location), /^\/login/);
  assert.ok(!anonymous.rawPayload.includes(smallJpeg.subarray(0, 64)));
  const anonymousUpload = await testApp.app.inject({ method: 'POST', url: '/attachments', headers: { 'content-type': 'image/jpeg' }, payload: smallJpeg });
  assert.equal(anonymousUpload.statusCode, 401);
  assert.equal(countAttachments(testApp), 1);

  const missing = await testApp.app.inject({ url: '/attachments/999', headers: { cookie: session.cookie } });
  assert.equal(missing.statusCode, 404);

  // Removed from the tray before sending: deleted at once, with the CSRF token only.
  const remove = (headers: Record<string, string>) => testApp.app.inject({ method: 'DELETE', url: uploaded.url, headers: { cookie: session.cookie, ...headers } });
  assert.equal((await remove({})).statusCode, 403);
  assert.equal((await remove({ 'x-csrf-token': session.token })).statusCode, 204);
  assert.equal(countAttachments(testApp), 0);
  assert.equal((await testApp.app.inject({ url: uploaded.url, headers: { cookie: session.cookie } })).statusCode, 404);
});

test('an upload without the CSRF token, or from another site, is refused and stores nothing', async (t) => {
  const testApp = await buildTestApp(t);
  const session = await loggedIn(testApp);
  const noToken = await testApp.app.inject({
    method: 'POST',
    url: '/attachments',
    headers: { cookie: session.cookie, 'content-type': 'image/jpeg' },
    payload: smallJpeg,
  });
  assert.equal(noToken.statusCode, 403);
  assert.match(noToken.json().error, /expired/);
  const foreign = await testApp.app.inject({
    method: 'POST',
    url: '/attachments',
    headers: { cookie: session.cookie, 'x-csrf-token': session.token, 'content-type': 'image/jpeg', 'sec-fetch-site': 'cross-site' },
    payload: smallJpeg,
  });
  assert.equal(foreign.statusCode, 403);
  assert.equal(countAttachments(testApp), 0);
});

test('what is not a usable photo gets a clear message: not an image, too many bytes, too many pixels', async (t) => {
  const testApp = await buildTestApp(t);
  const session = await loggedIn(testApp);

  // The Content-Type says JPEG; the bytes say otherwise.
  const text = await uploadPhoto(testApp.app, session, Buffer.from('<html><script>alert(1)</script></html>'));
  assert.equal(text.statusCode, 415);
  assert.equal(text.json().error, 'That file is not a photo. Attach a JPEG, PNG or WebP image.');
  const pdf = await uploadPhoto(testApp.app, session, Buffer.from('%PDF-1.7 ...'), 'application/pdf');
  assert.equal(pdf.statusCode, 415);
  // The right magic bytes, then nothing readable.
  const damaged = await uploadPhoto(testApp.app, session, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
  assert.equal(damaged.statusCode, 400);
  assert.match(damaged.json().error, /could not be read/);

  const huge = Buffer.concat([smallJpeg, Buffer.alloc(9 * 1024 * 1024)]);
  const tooBig = await uploadPhoto(testApp.app, session, huge);
  assert.equal(tooBig.statusCode, 413);
  assert.equal(tooBig.json().error, 'That photo is 9.0 MB; the limit is 8 MB.');

  const tooManyPixels = await uploadPhoto(testApp.app, session, solidPng(6000, 4000, { headerOnly: true }), 'image/png');
  assert.equal(tooManyPixels.statusCode, 413);
  assert.equal(tooManyPixels.json().error, 'That photo is 6,000×4,000 px; the limit is 4,096 px on its long side.');

  // A real PNG is fine, and is stored as PNG whatever the request said.
  const png = await uploadPhoto(testApp.app, session, solidPng(30, 20), 'image/jpeg');
  assert.equal(png.statusCode, 201, png.body);
  const served = await testApp.app.inject({ url: `/attachments/${png.json().id}`, headers: { cookie: session.cookie } });
  assert.equal(served.headers['content-type'], 'image/png');
  assert.equal(countAttachments(testApp), 1);
});

test('photos reach a vision model as Ollama images, show in the thread, and go with the conversation', async (t) => {
  // No undo window: the deleted chat is purged at once (tests/app/soft-delete.test.ts has the window).
  const harness = await startChatHarness(t, { standin: { models: visionModels() }, dependencies: { undoDeleteMs: 0 } });
  const { socket, standin, store, app, cookies } = harness;
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const session = { cookie: cookies, token: csrfTokenFrom(page.body) };
  const first = (await uploadPhoto(harness.app, session, smallJpeg)).json().id as number;
  const second = (await uploadPhoto(harness.app, session, solidPng(30, 20), 'image/png')).json().id as number;
  const putThumbnail = (id: number, body: Buffer) =>
    app.inject({ method: 'PUT', url: `/attachments/${id}/thumbnail`, headers: { cookie: cookies, 'x-csrf-token': session.token, 'content-type': 'image/jpeg' }, payload: body });
  assert.equal((await putThumbnail(first, smallJpeg)).statusCode, 204);
  // A thumbnail is a small JPEG.
  const pngThumbnail = await putThumbnail(second, solidPng(30, 20));
  assert.deepEqual([pngThumbnail.statusCode, pngThumbnail.json().error], [415, 'A thumbnail must be a JPEG.']);
  const bigThumbnail = await putThumbnail(second, Buffer.concat([smallJpeg, Buffer.alloc(300 * 1024)]));
  assert.deepEqual([bigThumbnail.statusCode, bigThumbnail.json().error], [413, 'That file is over 200 KB, the limit.']);

  standin.enqueue({ content: 'A gradient and a blue square.' });
  socket.send({ type: 'send', message: 'What are these?', conversationId: '', model: 'llava:latest', attachments: `${first},${second}` });
  await harness.turnFinished();

  const sent = standin.requests[0]!.body.messages as Array<{ role: string; content: string; images?: string[] }>;
  assert.deepEqual(sent.at(-1), {
    role: 'user',
    content: 'What are these?',
    images: [smallJpeg.toString('base64'), solidPng(30, 20).toString('base64')],
  });
  // The live thread showed them in the person's message.
  const added = socket.messages.find((message) => message.target === '#chat-thread' && String(message.content).includes('chat-message-user'));
  assert.match(String(added?.content), new RegExp(`<img src="/attachments/${first}/thumbnail"[^>]*width="12" height="8"`));

  // A later turn still carries them with the turn they were sent in.
  standin.enqueue({ content: 'Red to blue.' });
  socket.send({ type: 'send', message: 'Which colours?', conversationId: '1' });
  await socket.waitFor((message) => message.target === '#message-4' && String(message.content).includes('data-status="complete"'));
  const later = standin.requests[1]!.body.messages as Array<{ role: string; content: string; images?: string[] }>;
  assert.equal(later.find((message) => message.content === 'What are these?')?.images?.length, 2);
  assert.equal(later.at(-1)!.images, undefined);

  // A reload shows them (the thumbnail the browser made, or the photo when there is none); the exports name them.
  const reloaded = await app.inject({ url: '/c/1', headers: { cookie: cookies } });
  assert.match(reloaded.body, new RegExp(`<a class="message-photo" href="/attachments/${second}"`));
  assert.match(reloaded.body, new RegExp(`<img src="/attachments/${first}/thumbnail"`));
  assert.match(reloaded.body, new RegExp(`<img src="/attachments/${second}"`));
  // A tap on one brings the viewer's slides: both photos of the message, the tapped one shown.
  const viewerUrl = new RegExp(`hx-get="(/messages/\\d+/photos/${second})"`).exec(reloaded.body)?.[1];
  assert.ok(viewerUrl, 'the thumbnail asks for the viewer');
  const viewer = await app.inject({ url: viewerUrl, headers: { cookie: cookies } });
  const slides = [...viewer.body.matchAll(/<div class="photo-viewer-slide"[^>]*>/g)].map(([slide]) => slide.includes(' hidden'));
  assert.deepEqual(slides, [true, false], 'the second of two shown');
  assert.match(viewer.body, /Photo 2 of 2/);
  assert.match(viewer.body, new RegExp(`class="photo-viewer-image" src="/attachments/${second}"`));
  assert.match(viewer.body, /aria-label="Next photo" disabled>/);
  assert.equal((await app.inject({ url: viewerUrl.replace(/\d+$/, '999'), headers: { cookie: cookies } })).statusCode, 404);
  assert.equal((await app.inject({ url: viewerUrl })).statusCode, 302, 'only for a logged-in session: others are sent to log in');
  const thumbnail = await app.inject({ url: `/attachments/${first}/thumbnail`, headers: { cookie: cookies } });
  assert.equal(thumbnail.headers['content-type'], 'image/jpeg');
  assert.ok(thumbnail.rawPayload.equals(smallJpeg));
  // A sent photo's thumbnail cannot be changed.
  const late = await app.inject({ method: 'PUT', url: `/attachments/${first}/thumbnail`, headers: { cookie: cookies, 'x-csrf-token': session.token, 'content-type': 'image/jpeg' }, payload: smallJpeg });
  assert.equal(late.statusCode, 404);
  const markdown = await app.inject({ url: '/c/1/export.md', headers: { cookie: cookies } });
  assert.match(markdown.body, new RegExp(`_Photo: photo-${first}\\.jpeg, 12×8 px, 1 KB \\(/attachments/${first}\\)_`));
  const json = (await app.inject({ url: '/c/1/export.json', headers: { cookie: cookies } })).json();
  assert.deepEqual(
    json.messages[0].photos.map((photo: { id: number; mime: string }) => [photo.id, photo.mime]),
    [[first, 'image/jpeg'], [second, 'image/png']],
  );

  // A sent photo belongs to its message: the tray's delete cannot remove it.
  const sentDelete = await app.inject({ method: 'DELETE', url: `/attachments/${first}`, headers: { cookie: cookies, 'x-csrf-token': session.token } });
  assert.equal(sentDelete.statusCode, 404);
  assert.equal(countAttachments(harness), 2);

  // Deleting the conversation deletes its photos.
  const deleted = await app.inject({ method: 'DELETE', url: '/c/1', headers: { cookie: cookies, 'x-csrf-token': session.token } });
  assert.equal(deleted.statusCode, 200);
  for (let tries = 0; tries < 100 && countAttachments(harness) > 0; tries++) await sleep(20);
  assert.equal(countAttachments(harness), 0);
  assert.equal((await app.inject({ url: `/attachments/${first}`, headers: { cookie: cookies } })).statusCode, 404);
  assert.equal(store.listConversations(10).length, 0);
});

test('a model without vision is refused before anything is saved, naming the models that can see', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: visionModels() } });
  const { socket, standin, store, app, cookies } = harness;
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const session = { cookie: cookies, token: csrfTokenFrom(page.body) };
  const expected = 'llama3.2 cannot see photos. Models here that can: gemma3, llava';

  // The picker knows before sending: vision models marked, and the server's words for the others.
  assert.match(page.body, /<option value="llava:latest" data-vision>/);
  assert.match(page.body, /<option value="llama3.2:latest">/);
  assert.match(page.body, /data-photo-refusal="\{model\} cannot see photos. Models here that can: gemma3, llava"/);

  const id = (await uploadPhoto(harness.app, session, smallJpeg)).json().id as number;
  socket.send({ type: 'send', message: 'Look', conversationId: '', model: 'llama3.2:latest', attachments: String(id) });
  const refusal = await socket.waitFor((message) => message.target === '#chat-thread' && String(message.content).includes('chat-error'));
  assert.match(String(refusal.content), new RegExp(expected));
  assert.equal(store.listConversations(10).length, 0, 'nothing was saved');
  assert.equal(standin.requests.length, 0, 'the model was not asked');

  // The plain form (no socket yet) says the same; the photo is still there to send to another model.
  const form = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: cookies },
    payload: { _csrf: session.token, message: 'Look', conversationId: '', model: 'llama3.2:latest', attachments: String(id) },
  });
  assert.equal(form.statusCode, 400);
  assert.ok(form.body.includes(expected));

  // Photos alone are a message: sent through the form to a model that can see.
  standin.enqueue({ content: 'A small gradient.' });
  const sent = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: cookies },
    payload: { _csrf: session.token, message: '', conversationId: '', model: 'llava:latest', attachments: String(id) },
  });
  assert.equal(sent.statusCode, 303, sent.body);
  await standin.waitForRequests(1);
  const conversation = store.listConversations(10)[0]!;
  assert.equal(conversation.title, 'Photo');
  const userMessage = store.listMessages(conversation.id)[0]!;
  assert.equal(userMessage.content, '');
  const images = (standin.requests[0]!.body.messages as Array<{ images?: string[] }>).at(-1)!.images;
  assert.deepEqual(images, [smallJpeg.toString('base64')]);
});

test('too many photos for one message, or one already sent, is refused with a message', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: visionModels() } });
  const { socket, store, app, cookies } = harness;
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const session = { cookie: cookies, token: csrfTokenFrom(page.body) };
  const ids: number[] = [];
  for (let index = 0; index < 5; index++) ids.push((await uploadPhoto(harness.app, session, smallJpeg)).json().id);

  socket.send({ type: 'send', message: 'All of them', conversationId: '', model: 'llava:latest', attachments: ids.join(',') });
  const tooMany = await socket.waitFor((message) => String(message.content).includes('chat-error'));
  assert.match(String(tooMany.content), /That is 5 photos; at most 4 can go with one message\. Remove some\./);
  assert.equal(store.listConversations(10).length, 0);

  socket.send({ type: 'send', message: 'Four', conversationId: '', model: 'llava:latest', attachments: ids.slice(0, 4).join(',') });
  await harness.turnFinished();
  socket.send({ type: 'send', message: 'Again', conversationId: '1', attachments: String(ids[0]) });
  await socket.waitFor((message) => String(message.content).includes('no longer here'));
  socket.send({ type: 'send', message: 'Junk', conversationId: '1', attachments: 'x' });
  await socket.waitFor((message) => String(message.content).includes('could not be read'));
  // The plain form catches the same error type: the person's words, a 400 and their text kept, not a 500.
  const form = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: cookies },
    payload: { _csrf: session.token, message: 'Junk by form', conversationId: '1', attachments: 'x' },
  });
  assert.equal(form.statusCode, 400);
  assert.match(form.body, /The attached photos could not be read\. Remove them and attach them again\./);
  assert.match(form.body, /Junk by form/);
  assert.equal(store.listMessages(1).length, 2, 'only the first send was saved');
});

test('writing a reply to photos again needs a model that can see them; the photos go with it again', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: visionModels() } });
  const { socket, standin, store, app, cookies } = harness;
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const session = { cookie: cookies, token: csrfTokenFrom(page.body) };
  const photo = (await uploadPhoto(harness.app, session, smallJpeg)).json().id as number;
  standin.enqueue({ content: 'A gradient.' }, { content: 'You are welcome.' }, { content: 'A soft gradient, red to blue.' });
  socket.send({ type: 'send', message: 'What is this?', conversationId: '', model: 'llava:latest', attachments: String(photo) });
  await harness.turnFinished();
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Thanks', conversationId: '1' });
  await harness.turnFinished();

  // The reply to the photo, with a model that cannot see: refused, and nothing changed.
  socket.send({ type: 'regenerate', messageId: 2, model: 'llama3.2:latest' });
  await socket.waitFor((message) => String(message.content).includes('llama3.2 cannot see photos. Models here that can: gemma3, llava'));
  assert.deepEqual(store.listMessages(1).map((message) => message.content), ['What is this?', 'A gradient.', 'Thanks', 'You are welcome.']);
  assert.equal(store.getConversation(1)!.model, 'llava:latest', 'the chat keeps its model');
  assert.equal(standin.requests.length, 2);

  // With a model that can see, the photo goes with the question again.
  socket.messages.length = 0;
  socket.send({ type: 'regenerate', messageId: 2, model: 'gemma3:latest' });
  await harness.turnFinished();
  const sent = standin.requests[2]!.body.messages as Array<{ content: string; images?: string[] }>;
  assert.deepEqual(sent.at(-1), { role: 'user', content: 'What is this?', images: [smallJpeg.toString('base64')] });
  assert.deepEqual(store.listMessages(1).map((message) => message.content), ['What is this?', 'A soft gradient, red to blue.']);
});

test('photos uploaded and never sent are removed after a day', async (t) => {
  const testApp = await buildTestApp(t);
  let clock = 1_000_000;
  const attachments = createAttachmentStore(testApp.database, () => clock);
  const old = attachments.add({ mime: 'image/jpeg', bytes: smallJpeg, width: 12, height: 8 });
  clock += 25 * 3_600_000;
  const fresh = attachments.add({ mime: 'image/jpeg', bytes: smallJpeg, width: 12, height: 8 });
  assert.equal(attachments.pruneUnsent(clock - 24 * 3_600_000), 1);
  assert.equal(attachments.getWithBytes(old.id), undefined);
  assert.ok(attachments.getWithBytes(fresh.id));
});

test('deleting a chat with photos makes the database file smaller, and the other chats’ photos stay whole', async (t) => {
  // No undo window: purged at once, as any deleted chat is after its window.
  const testApp = await buildTestApp(t, { dependencies: { undoDeleteMs: 0 } });
  const { database, app } = testApp;
  const session = await loggedIn(testApp);
  const file = path.join(testApp.dataDir, 'hearth.sqlite');
  assert.equal(database.pragma('auto_vacuum', { simple: true }), 2, 'a new database gives space back (incremental)');

  const store = createConversationStore(database);
  const attachments = createAttachmentStore(database);
  // Photos as stored: the store keeps bytes as given. Random bytes, so nothing about them is small.
  const chatWithPhotos = (title: string, count: number, bytesEach: number) => {
    const conversation = store.createConversation(title, 'llava:latest');
    const message = store.addMessage(conversation.id, 'user', title);
    const photos = Array.from({ length: count }, () => Buffer.concat([smallJpeg, randomBytes(bytesEach)]));
    const ids = photos.map((bytes) => attachments.add({ mime: 'image/jpeg', bytes, width: 12, height: 8 }).id);
    attachments.linkToMessage(ids, conversation.id, message.id);
    store.addMessage(conversation.id, 'assistant', 'Nice photos.', { model: 'llava:latest' });
    return { id: conversation.id, photos, ids };
  };
  const kept = chatWithPhotos('Kept', 2, 300 * 1024);
  const deleted = chatWithPhotos('Deleted', 4, 2 * 1024 * 1024);
  const mainFileSize = () => {
    database.pragma('wal_checkpoint(TRUNCATE)');
    return fs.statSync(file).size;
  };
  const before = mainFileSize();
  assert.ok(before > 8 * 1024 * 1024, `${before} bytes with the photos`);

  const response = await app.inject({ method: 'DELETE', url: `/c/${deleted.id}`, headers: { cookie: session.cookie, 'x-csrf-token': session.token } });
  assert.equal(response.statusCode, 200);
  // The space is given back after the answer, in batches: wait for it (at most a few seconds).
  for (let tries = 0; tries < 100 && fs.statSync(file).size > before - 8 * 1024 * 1024; tries++) await sleep(50);
  const after = fs.statSync(file).size;
  t.diagnostic(`database file: ${(before / 1024 / 1024).toFixed(1)} MB with the chat, ${(after / 1024 / 1024).toFixed(1)} MB after deleting it`);
  assert.ok(after <= before - 8 * 1024 * 1024, `the 8 MB of photos left the file: ${before} → ${after} bytes`);
  assert.ok((database.pragma('freelist_count', { simple: true }) as number) < 256, 'few free pages are left inside');

  // Pages were moved to fill the holes: the chat that stays is intact, byte for byte.
  assert.equal(database.pragma('integrity_check', { simple: true }), 'ok');
  kept.ids.forEach((id, index) => assert.ok(attachments.getWithBytes(id)!.bytes.equals(kept.photos[index]!), `photo ${id} unchanged`));
  const photo = await app.inject({ url: `/attachments/${kept.ids[1]}`, headers: { cookie: session.cookie } });
  assert.ok(photo.rawPayload.equals(kept.photos[1]!));
  assert.equal(attachments.getWithBytes(deleted.ids[0]!), undefined);
});
