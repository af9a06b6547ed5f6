/** The colours of public/app.css and public/offline.css: WCAG 2 contrast (relative luminance) in light and dark. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../../src/config/project-root.js';

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16) / 255);
  const [red, green, blue] = channels.map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4));
  return 0.2126 * red! + 0.7152 * green! + 0.0722 * blue!;
}

function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (lighter! + 0.05) / (darker! + 0.05);
}

/** The custom properties of the first `:root {…}` block (light) and of the one inside the dark media query. */
function palettes(css: string): { light: Record<string, string>; dark: Record<string, string> } {
  const read = (block: string) =>
    Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)].map((match) => [match[1]!, match[2]!.toLowerCase()]));
  const darkStart = css.indexOf('prefers-color-scheme: dark');
  assert.ok(darkStart > 0, 'app.css has a dark palette');
  const lightBlock = css.slice(0, darkStart);
  const darkBlock = css.slice(darkStart, css.indexOf('}', css.indexOf('{', css.indexOf('{', darkStart) + 1)));
  return { light: read(lightBlock), dark: read(darkBlock) };
}

test('contrast helper matches known WCAG figures', () => {
  assert.equal(contrastRatio('#000000', '#ffffff').toFixed(2), '21.00');
  assert.equal(contrastRatio('#c2571a', '#ffffff').toFixed(2), '4.49', 'the old accent really failed');
});

test('the offline page keeps app.css\'s palette (it was copied, and its accent drifted back to the failing one)', () => {
  const read = (file: string) => palettes(fs.readFileSync(path.join(projectRoot, 'public', file), 'utf8'));
  const app = read('app.css');
  const offline = read('offline.css');
  for (const scheme of ['light', 'dark'] as const) {
    for (const [key, colour] of Object.entries(offline[scheme])) assert.equal(colour, app[scheme][key], `offline.css --${key} (${scheme})`);
  }
});

test('the accent passes WCAG AA (4.5:1) for button text and links, in light and dark', () => {
  const css = fs.readFileSync(path.join(projectRoot, 'public', 'app.css'), 'utf8');
  const { light, dark } = palettes(css);
  for (const [name, palette] of [['light', light], ['dark', dark]] as const) {
    for (const key of ['accent', 'accent-text', 'background', 'surface', 'text', 'muted', 'error', 'error-background']) {
      assert.ok(palette[key], `${name} palette defines --${key}`);
    }
    const pairs: Array<[string, string]> = [
      ['accent', 'accent-text'],
      ['accent', 'background'],
      ['accent', 'surface'],
      ['text', 'background'],
      ['muted', 'background'],
      ['muted', 'surface'],
      ['error', 'error-background'],
    ];
    for (const [foreground, background] of pairs) {
      const ratio = contrastRatio(palette[foreground]!, palette[background]!);
      assert.ok(ratio >= 4.5, `${name}: --${foreground} on --${background} is ${ratio.toFixed(2)}:1`);
    }
  }
});

test('code highlighting colours pass 4.5:1 on the code background, in light and dark', () => {
  const css = fs.readFileSync(path.join(projectRoot, 'public', 'app.css'), 'utf8');
  const { light, dark } = palettes(css);
  const colours = [...css.matchAll(/\.hljs-[\w-]+[^{]*\{\s*color:\s*(#[0-9a-fA-F]{6})/g)].map((match) => [match[1]!.toLowerCase(), match.index!] as const);
  const darkStart = css.indexOf('prefers-color-scheme: dark', css.indexOf('.hljs-'));
  assert.ok(colours.length >= 8, 'light and dark highlight colours are found');
  for (const [colour, index] of colours) {
    const background = index > darkStart && darkStart > 0 ? dark['code-background']! : light['code-background']!;
    const ratio = contrastRatio(colour, background);
    assert.ok(ratio >= 4.5, `${colour} on ${background} is ${ratio.toFixed(2)}:1`);
  }
});
