/**
 * Where the Chromium (or Google Chrome) that the browser tests and scripts drive lives:
 * CHROMIUM_PATH when set, else the first usual place for this system that has one. A fresh clone
 * on macOS, Fedora or Ubuntu's snap finds its browser without being told; none found is one clear
 * message that names CHROMIUM_PATH and the places looked at.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Usual places, in order: Debian's package first (the one CI installs), then other packagings. */
export function chromiumCandidates(platform: NodeJS.Platform, home: string): string[] {
  if (platform === 'darwin') {
    const apps = ['Google Chrome.app/Contents/MacOS/Google Chrome', 'Chromium.app/Contents/MacOS/Chromium'];
    return [...apps.map((app) => path.posix.join('/Applications', app)), ...apps.map((app) => path.posix.join(home, 'Applications', app))];
  }
  return [
    '/usr/bin/chromium', // Debian, Arch, openSUSE
    '/usr/bin/chromium-browser', // Fedora, Alpine, older Ubuntu
    '/usr/bin/google-chrome-stable',
    '/usr/bin/google-chrome',
    '/snap/bin/chromium', // Ubuntu
    '/run/current-system/sw/bin/chromium', // NixOS
    '/usr/local/bin/chromium', // self-built, the BSDs
    '/usr/local/bin/chrome', // FreeBSD's package
    '/opt/google/chrome/chrome',
  ];
}

export interface ChromiumSearch {
  environment?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
  /** Whether a file is there and can be run (passed in so tests need not touch the disk). */
  isExecutable?: (file: string) => boolean;
}

export function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The browser to launch; throws one readable error when there is none. */
export function findChromium(search: ChromiumSearch = {}): string {
  const environment = search.environment ?? process.env;
  const isExecutable = search.isExecutable ?? isExecutableFile;
  const chosen = environment.CHROMIUM_PATH?.trim();
  // A path the person gave that does not work is said so, rather than quietly using another browser.
  if (chosen) {
    if (isExecutable(chosen)) return chosen;
    throw new Error(`CHROMIUM_PATH is set to "${chosen}", which is not a program this user can run. Point it at Chromium or Google Chrome, or unset it to look in the usual places.`);
  }
  const candidates = chromiumCandidates(search.platform ?? process.platform, search.home ?? os.homedir());
  const found = candidates.find((candidate) => isExecutable(candidate));
  if (found) return found;
  throw new Error(
    `No Chromium or Google Chrome found for the browser tests. Install one (Debian/Ubuntu: apt install chromium) or set CHROMIUM_PATH to its program. Looked in: ${candidates.join(', ')}.`,
  );
}
