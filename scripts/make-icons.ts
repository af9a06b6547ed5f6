/**
 * Remakes the PNG app icons in public/ from the flame in public/icon.svg, by rendering SVG in
 * Chromium (CHROMIUM_PATH or the usual place; no image library needed). Run by hand after changing the icon:
 *   node --import tsx scripts/make-icons.ts
 * The PNGs are committed; the build never runs this.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { projectRoot } from '../src/config/project-root.js';
import { findChromium } from '../tests/support/chromium-path.js';

const background = '#1f2430';
const flameColour = '#f0883e';
const flamePath = 'M16 5c3 5 8 8 8 14a8 8 0 0 1-16 0c0-4 2-6 4-8 0 3 1 5 3 5-1-4 0-8 1-11z';
/** The flame's box in icon.svg's 32×32 grid, so it can be centred and scaled. */
const flameBox = { x: 8, y: 5, width: 16, height: 22 };

/** The flame drawn `flameShare` of the icon high, centred, on a background of the given shape. */
function iconSvg(size: number, shape: 'rounded' | 'square', flameShare: number): string {
  const scale = (32 * flameShare) / flameBox.height;
  const offsetX = 16 - (flameBox.x + flameBox.width / 2) * scale;
  const offsetY = 16 - (flameBox.y + flameBox.height / 2) * scale;
  const corner = shape === 'rounded' ? 7 : 0;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="${size}" height="${size}">`
    + `<rect width="32" height="32" rx="${corner}" fill="${background}"/>`
    + `<path transform="translate(${offsetX} ${offsetY}) scale(${scale})" d="${flamePath}" fill="${flameColour}"/></svg>`;
}

export const icons = [
  // "any": the same picture as icon.svg (rounded corners, transparent outside them).
  { file: 'icon-192.png', size: 192, shape: 'rounded', flameShare: 22 / 32 },
  { file: 'icon-512.png', size: 512, shape: 'rounded', flameShare: 22 / 32 },
  // "maskable": full bleed, the flame inside the central circle of 40% radius that every mask keeps.
  { file: 'icon-maskable-512.png', size: 512, shape: 'square', flameShare: 0.5 },
  // iOS rounds the corners itself and fills transparency with black: full bleed, a little padding.
  { file: 'apple-touch-icon.png', size: 180, shape: 'square', flameShare: 0.62 },
] as const;

async function makeIcons(): Promise<void> {
  const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const icon of icons) {
      const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size }, deviceScaleFactor: 1 });
      await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${iconSvg(icon.size, icon.shape, icon.flameShare)}`);
      const file = path.join(projectRoot, 'public', icon.file);
      await page.screenshot({ path: file, omitBackground: true, clip: { x: 0, y: 0, width: icon.size, height: icon.size } });
      await page.close();
      console.log(`${icon.file}: ${icon.size}×${icon.size}, ${fs.statSync(file).size} bytes`);
    }
  } finally {
    await browser.close();
  }
}

await makeIcons();
