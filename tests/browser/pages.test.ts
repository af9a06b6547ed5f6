/**
 * The memory, settings and phone set-up pages on a phone (390x844, touch), light and dark: no
 * accessibility violations (axe-core), every control at least 44 px, and the memory list's Add,
 * Edit and Remove working in a real browser without any script of ours. Set HEARTH_SCREENSHOTS
 * to a folder to keep a picture of each page.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage, phone } from '../support/browser.js';
import { buildTestApp } from '../support/test-app.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const userAgents = {
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
};

async function violationsOf(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map(
    (violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** Visible buttons, links styled as buttons, summaries and fields smaller than 44 px either way. */
async function smallControlsOf(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, .button, summary, input:not([type="hidden"]), select')]
      .filter((element) => element.getClientRects().length > 0)
      .map((element) => ({ element, box: element.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 44 || box.height < 44)
      .map(({ element, box }) => `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''} "${(element.textContent ?? '').trim().slice(0, 30)}" ${Math.round(box.width)}x${Math.round(box.height)}`),
  );
}

async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.HEARTH_SCREENSHOTS;
  if (folder) await page.screenshot({ path: path.join(folder, `pages-after-${name}.png`), fullPage: true });
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`memory and settings on a phone, ${colorScheme}: a list to add to, edit and remove from; axe finds nothing`, async (t: TestContext) => {
    const testApp = await buildTestApp(t);
    const baseUrl = await testApp.listen();
    fs.writeFileSync(testApp.config.memoryFile, '# About Ada\n\n- The user is called Ada.\n- Keeps bees in Leeds.\n- Prefers short answers.\n');
    const { page } = await newPage(t, browser, phone({ deviceScaleFactor: 1, colorScheme }));
    await loginInBrowser(page, baseUrl);
    await page.goto(`${baseUrl}/memory`);
    assert.equal(await page.locator('#memory-fullness').innerText(), 'Memory is 4% full.');
    assert.deepEqual(await page.locator('.memory-entry-text').allInnerTexts(), ['The user is called Ada.', 'Keeps bees in Leeds.', 'Prefers short answers.']);
    assert.equal(await page.locator('#memory-editor').isVisible(), false, 'the whole file is folded away');
    assert.deepEqual(await violationsOf(page), [], 'memory page');
    assert.deepEqual(await smallControlsOf(page), [], 'memory page controls');
    await screenshot(page, `memory-${colorScheme}`);

    // Edit the second entry: its form opens in place.
    const second = page.locator('#memory-entry-3');
    await second.locator('summary').click();
    await second.locator('textarea').fill('Keeps bees and hens in Leeds.');
    assert.deepEqual(await violationsOf(page), [], 'memory page, an entry being edited');
    assert.deepEqual(await smallControlsOf(page), [], 'controls of an entry being edited');
    await screenshot(page, `memory-editing-${colorScheme}`);
    await Promise.all([page.waitForURL(/saved=edited/), second.locator('.memory-entry-save').click()]);

    await page.locator('#memory-add-text').fill('Has a cat called Pip.');
    await Promise.all([page.waitForURL(/saved=added/), page.locator('#memory-add-button').click()]);
    await Promise.all([page.waitForURL(/saved=removed/), page.locator('#memory-entry-4 .memory-remove').click()]);
    assert.deepEqual(await page.locator('.memory-entry-text').allInnerTexts(), ['The user is called Ada.', 'Keeps bees and hens in Leeds.', 'Has a cat called Pip.']);
    assert.equal(fs.readFileSync(testApp.config.memoryFile, 'utf8'), '# About Ada\n\n- The user is called Ada.\n- Keeps bees and hens in Leeds.\n- Has a cat called Pip.\n');

    await page.locator('#memory-file > summary').click();
    assert.equal(await page.locator('#memory-editor').isVisible(), true);
    assert.deepEqual(await violationsOf(page), [], 'memory page, whole file open');
    await screenshot(page, `memory-file-${colorScheme}`);

    await page.goto(`${baseUrl}/settings`);
    await page.locator('#system-prompt-reset-ask > summary').click();
    assert.deepEqual(await violationsOf(page), [], 'settings page');
    assert.deepEqual(await smallControlsOf(page), [], 'settings page controls');
    await screenshot(page, `settings-${colorScheme}`);
    assertNoPageErrors(page);
  });

  test(`the set-up page on an iPhone and on an Android phone, ${colorScheme}: its own steps first, a big Open Hearth button, axe finds nothing`, async (t: TestContext) => {
    const testApp = await buildTestApp(t, { environment: { TLS: 'auto', SETUP_PORT: '0' } });
    await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    const localTls = testApp.app.localTls!;
    await localTls.announce();
    const setupUrl = `http://127.0.0.1:${localTls.setupPort()}/setup`;
    for (const [name, userAgent] of Object.entries(userAgents)) {
      const { page } = await newPage(t, browser, phone({ deviceScaleFactor: 1, colorScheme, userAgent }));
      await page.goto(setupUrl);
      const own = name === 'iphone' ? '#setup-download-profile' : '#setup-download-certificate';
      const other = name === 'iphone' ? '#setup-download-certificate' : '#setup-download-profile';
      assert.equal(await page.locator(own).isVisible(), true, `${name}: its own download shows`);
      assert.equal(await page.locator(other).isVisible(), false, `${name}: the other phone's is folded away`);
      const open = page.locator('#setup-open-hearth-secure');
      const box = (await open.boundingBox())!;
      assert.ok(box.height >= 44 && box.width >= 300, `${name}: Open Hearth is a big button (${box.width}x${box.height})`);
      assert.equal(await open.innerText(), 'Open Hearth');
      assert.deepEqual(await violationsOf(page), [], `${name} set-up page`);
      assert.deepEqual(await smallControlsOf(page), [], `${name} set-up page controls`);
      await screenshot(page, `setup-${name}-${colorScheme}`);
      await page.locator('details.setup-other > summary').click();
      assert.equal(await page.locator(other).isVisible(), true, `${name}: the other phone's steps open on a tap`);
      assert.deepEqual(await violationsOf(page), [], `${name} set-up page, other phone open`);
      // 127.0.0.1 is a secure context, so install.js asks for /sw.js, which the set-up port sends
      // to HTTPS; a phone opens the set-up port by its LAN address, where no worker is asked for.
      assertNoPageErrors(page, [/script resource is behind a redirect/]);
    }
  });
}
