/** Helpers for browser tests of the chat page: open a logged-in chat, send, wait for replies. */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loginInBrowser, newPage } from './browser.js';
import type { OllamaStandin } from './ollama-standin.js';
import { createAttachmentStore } from '../../src/storage/attachment-store.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import type { SqliteDatabase } from '../../src/storage/database.js';
import { buildTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export interface ChatSetup {
  test: TestApp;
  baseUrl: string;
  page: Page;
}

/** A test app listening on a real port, and a logged-in page on its chat page. */
export async function openChat(
  t: TestContext,
  browser: Browser,
  options: { app?: TestAppOptions; context?: Parameters<typeof newPage>[2] } = {},
): Promise<ChatSetup> {
  const testApp = await buildTestApp(t, options.app);
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser, options.context);
  await trackSocket(page);
  await loginInBrowser(page, baseUrl);
  assert.equal(new URL(page.url()).pathname, '/');
  await waitForSocket(page);
  return { test: testApp, baseUrl, page };
}

/** Counts the htmx WebSocket connections that opened, so a test can wait for the live link. */
export async function trackSocket(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const state = window as unknown as { __socketsOpened: number; __socketEvents: string[] };
    state.__socketsOpened = 0;
    state.__socketEvents = [];
    document.addEventListener('htmx:ws:after:connection', () => {
      state.__socketsOpened++;
      state.__socketEvents.push('open');
    });
    // Kept for the failure message: what happened to the socket if it never opened.
    for (const name of ['htmx:ws:before:connection', 'htmx:ws:close', 'htmx:ws:error']) {
      document.addEventListener(name, (event) => {
        const detail = (event as CustomEvent).detail ?? {};
        state.__socketEvents.push(`${name.slice(8)}:${detail.code ?? ''}:${detail.reason ?? ''}:${String(detail.error ?? '')}`);
      });
    }
  });
}

export async function waitForSocket(page: Page): Promise<void> {
  try {
    await waitFor(page, () => (window as unknown as { __socketsOpened?: number }).__socketsOpened! > 0);
  } catch (error) {
    const state = await page.evaluate(() => ({
      url: location.href,
      readyState: document.readyState,
      visibility: document.visibilityState,
      htmx: typeof (window as unknown as { htmx?: unknown }).htmx,
      bodyClass: document.body.className,
      socketEvents: (window as unknown as { __socketEvents?: string[] }).__socketEvents,
    }));
    throw new Error(`the chat WebSocket did not open: ${JSON.stringify(state)}`, { cause: error });
  }
}

/** waitForFunction on a timer: requestAnimationFrame polling stalls when Chromium skips frames. */
export function waitFor(page: Page, predicate: () => boolean): Promise<unknown>;
export function waitFor<Arg extends number | string>(page: Page, predicate: (arg: Arg) => boolean, arg: Arg): Promise<unknown>;
export function waitFor(page: Page, predicate: (arg?: unknown) => boolean, arg?: unknown): Promise<unknown> {
  return page.waitForFunction(predicate, arg, { polling: 50 });
}

/** Types and sends a message, then waits until the server has added the reply placeholder for it. */
export async function send(page: Page, text: string): Promise<void> {
  const replies = page.locator('#chat-thread .chat-message-assistant');
  const before = await replies.count();
  await page.locator('textarea#chat-input').fill(text);
  await page.locator('button#chat-send').click();
  try {
    await waitFor(page, (count) => document.querySelectorAll('#chat-thread .chat-message-assistant').length > count, before);
  } catch (error) {
    const shown = await page.locator('#chat-thread').innerText().catch(() => '(no thread)');
    throw new Error(`no reply started for ${JSON.stringify(text)}; the thread shows: ${shown.slice(-500)}`, { cause: error });
  }
}

export const lastAssistant = (page: Page) => page.locator('#chat-thread .chat-message-assistant').last();
export const lastAssistantBody = (page: Page) => lastAssistant(page).locator('.chat-message-body');

/** Waits until the last assistant message is no longer streaming; returns its status. */
export async function waitForReplyEnd(page: Page, timeout = 10_000): Promise<string> {
  const message = lastAssistant(page);
  await message.and(page.locator(':not([data-status="streaming"])')).waitFor({ timeout });
  return (await message.getAttribute('data-status')) ?? '';
}

export const normalize = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

export function words(count: number, prefix = 'word'): string {
  return Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`).join(' ');
}


/**
 * The everyday chat that the page checks (axe, Lighthouse) look at: a turn with a calculator card
 * and a code block that scrolls sideways. The stand-in also gets the next turn's reply, a call to
 * the test registry's `send_note`, which waits for approval: see askForApproval.
 */
export async function chatWithToolAndCode(page: Page, standin: Pick<OllamaStandin, 'enqueue'>): Promise<void> {
  standin.enqueue(
    { content: 'Let me calculate. [TOOL:calculator]6 * 7[/TOOL]' },
    { content: 'The answer is **42**.\n\n```js\nconst answer = 42; // a long line that has to scroll sideways on a phone screen\n```\n' },
    { content: '[TOOL:send_note]buy milk[/TOOL]' },
  );
  await send(page, 'What is 6 times 7?');
  await waitFor(page, () => document.querySelectorAll('.chat-message-assistant').length === 2);
  assert.equal(await waitForReplyEnd(page), 'complete');
}

/** The turn after chatWithToolAndCode: its tool call shows an approval card. */
export async function askForApproval(page: Page): Promise<void> {
  await send(page, 'Send a note to buy milk');
  await page.locator('.tool-call-card .tool-approval').waitFor();
}

/**
 * Adds a turn with a photo to a conversation, stored as the browser sends one (a 1200×900 JPEG
 * drawn in the page, its thumbnail, then a reply). Reload the page to see it. Returns the JPEG.
 */
export async function addPhotoTurn(page: Page, database: SqliteDatabase, conversationId: number): Promise<Buffer> {
  const base64 = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 1200;
    canvas.height = 900;
    const context = canvas.getContext('2d')!;
    context.fillStyle = '#1c7ed6';
    context.fillRect(0, 0, 1200, 900);
    return canvas.toDataURL('image/jpeg', 0.8).slice('data:image/jpeg;base64,'.length);
  });
  const jpeg = Buffer.from(base64, 'base64');
  const store = createConversationStore(database);
  const attachments = createAttachmentStore(database);
  const photoMessage = store.addMessage(conversationId, 'user', 'What is in this photo?');
  const photo = attachments.add({ mime: 'image/jpeg', bytes: jpeg, width: 1200, height: 900 });
  attachments.setThumbnail(photo.id, jpeg);
  attachments.linkToMessage([photo.id], conversationId, photoMessage.id);
  store.addMessage(conversationId, 'assistant', 'A blue square.', { model: 'llama3.2:latest' });
  return jpeg;
}
