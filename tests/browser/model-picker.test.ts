/**
 * The model picker on a phone (390×844, light and dark): each model's abilities in its option, the
 * "no thinking" switch only for a thinking model (and think:false reaching Ollama), a new chat
 * opening with the last model chosen, and the one-tap switch when a photo meets a model that
 * cannot see, the photo kept and sent after it. axe finds nothing in either scheme.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
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

const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const models = () => [...defaultModels(), { name: 'llava:latest', capabilities: ['completion', 'vision'] }];
/** Pictures of what was checked, for a person to look at (HEARTH_SCREENSHOTS, a folder). */
const shots = process.env.HEARTH_SCREENSHOTS;

async function violationsOf(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

const optionTexts = (page: Page) => page.locator('#model-select option').allInnerTexts();

for (const colorScheme of ['light', 'dark'] as const) {
  test(`${colorScheme}: abilities in the picker, no thinking on request, the choice remembered, one tap to a model that sees`, async (t) => {
    const { test: testApp, baseUrl, page } = await openChat(t, browser, { app: { standin: { models: models() } }, context: { ...phone, colorScheme } });
    const { standin } = testApp;

    // What each model can do, in its option's own words.
    assert.deepEqual(await optionTexts(page), ['llama3.2 · tools', 'llava · sees', 'qwen3 · thinks · tools']);
    assert.equal(await page.locator('.think-switch').isVisible(), false, 'llama3.2 does not think: no switch');
    assert.deepEqual(await violationsOf(page), [], 'the empty chat');

    // A thinking model: the switch shows beside the message box; ticked, Ollama is asked not to think.
    await page.locator('#model-select').selectOption('qwen3:latest');
    await page.locator('.think-switch').waitFor({ state: 'visible' });
    const box = await page.locator('.think-switch').boundingBox();
    assert.ok(box && box.width >= 44 && box.height >= 44, `the switch is a 44 px target: ${JSON.stringify(box)}`);
    await page.locator('.think-switch').tap();
    assert.equal(await page.locator('#think-off').isChecked(), true);
    assert.deepEqual(await violationsOf(page), [], 'the switch ticked');
    if (shots) await page.screenshot({ path: path.join(shots, `model-no-thinking-${colorScheme}.png`) });
    await page.locator('#chat-input').fill('Quick: what is 2 + 2?');
    await page.locator('#chat-send').tap();
    await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 1);
    assert.equal(await waitForReplyEnd(page), 'complete');
    assert.equal(standin.requests.at(-1)?.model, 'qwen3:latest');
    assert.equal(standin.requests.at(-1)?.think, false);

    // A new chat opens with the model last chosen.
    await page.goto(`${baseUrl}/`);
    await waitForSocket(page);
    assert.equal(await page.locator('#model-select').inputValue(), 'qwen3:latest');

    // A photo for a model that cannot see: the refusal, and beside it one tap to llava.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-model-picker-'));
    t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
    const photo = path.join(folder, 'red.png');
    fs.writeFileSync(photo, solidPng(64, 48, { rgb: [200, 40, 40] }));
    await page.locator('#model-select').selectOption('llama3.2:latest');
    await page.locator('#photo-attach').waitFor({ state: 'visible' });
    await page.locator('#photo-input').setInputFiles(photo);
    await waitFor(page, () => document.querySelectorAll('.photo-tray-item:not(.is-uploading)').length === 1);
    assert.equal(await page.locator('#photo-error').innerText(), 'llama3.2 cannot see photos. Models here that can: llava');
    const switchButton = page.locator('#photo-switch-model');
    await switchButton.waitFor({ state: 'visible' });
    assert.equal(await switchButton.innerText(), 'Switch to llava');
    assert.deepEqual(await violationsOf(page), [], 'the refusal with its switch');
    if (shots) await page.screenshot({ path: path.join(shots, `model-photo-switch-${colorScheme}.png`) });

    await switchButton.tap();
    await waitFor(page, () => (document.getElementById('model-select') as HTMLSelectElement).value === 'llava:latest');
    await page.locator('#photo-error').waitFor({ state: 'hidden' });
    assert.equal(await switchButton.isVisible(), false);
    assert.equal(await page.locator('.photo-tray-item').count(), 1, 'the photo is kept');
    assert.equal(await page.locator('#chat-status').innerText(), 'Now using llava. Your photos are still there: send again.');
    if (shots) await page.screenshot({ path: path.join(shots, `model-switched-${colorScheme}.png`) });

    await page.locator('#chat-input').fill('What colour is this?');
    await page.locator('#chat-send').tap();
    await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 1);
    assert.equal(await waitForReplyEnd(page), 'complete');
    assert.equal(standin.requests.at(-1)?.model, 'llava:latest');
    const sent = standin.requests.at(-1)!.body.messages as Array<{ images?: string[] }>;
    assert.equal(sent.at(-1)?.images?.length, 1);
    // llava is now the remembered choice too.
    await page.goto(`${baseUrl}/`);
    await waitForSocket(page);
    assert.equal(await page.locator('#model-select').inputValue(), 'llava:latest');
    if (shots) await page.screenshot({ path: path.join(shots, `model-abilities-${colorScheme}.png`) });
    assertNoPageErrors(page);
  });
}
