/**
 * Page weight: what a phone downloads to show the login and chat pages with every asset, counted
 * twice: resource by resource over plain HTTP with a browser's Accept-Encoding (body bytes as
 * sent, compressed or not), and in Chromium (every byte it received, headers included, and the
 * number of requests), with a phone's viewport and a mid-range phone's CPU (4x slowdown).
 */
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { findChromium } from '../../tests/support/chromium-path.js';
import { decodeBody, httpGet } from './hearth-client.js';
import { median, round } from './stats.js';

const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const phoneUserAgent =
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const browserHeaders = {
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-GB,en;q=0.9',
  'user-agent': phoneUserAgent,
};

export interface ResourceWeight {
  path: string;
  status: number;
  encoding: string;
  /** Body bytes as sent. */
  wireBytes: number;
  /** Body bytes once decoded. */
  bytes: number;
  headerBytes: number;
  cacheControl: string;
}

export interface HttpPageWeight {
  page: string;
  requests: number;
  /** Bodies as sent plus headers, every resource. */
  totalWireBytes: number;
  totalBytes: number;
  resources: ResourceWeight[];
}

function assetPaths(html: string): string[] {
  const paths = new Set<string>();
  for (const match of html.matchAll(/<(?:link[^>]+href|script[^>]+src)="([^"]+)"/g)) {
    const value = match[1]!;
    if (value.startsWith('/') && !value.startsWith('//')) paths.add(value);
  }
  return [...paths];
}

async function weigh(baseUrl: string, path: string, cookie: string | undefined): Promise<{ weight: ResourceWeight; body: Buffer }> {
  const response = await httpGet(`${baseUrl}${path}`, { ...browserHeaders, ...(cookie ? { cookie } : {}) });
  const encoding = String(response.headers['content-encoding'] ?? 'identity');
  const body = decodeBody(response);
  return {
    weight: {
      path,
      status: response.status,
      encoding,
      wireBytes: response.wireBytes,
      bytes: body.length,
      headerBytes: response.headerBytes,
      cacheControl: String(response.headers['cache-control'] ?? ''),
    },
    body,
  };
}

export async function weighPageOverHttp(baseUrl: string, page: string, cookie?: string): Promise<HttpPageWeight> {
  const document = await weigh(baseUrl, page, cookie);
  if (document.weight.status !== 200) throw new Error(`GET ${page} answered ${document.weight.status}`);
  const resources = [document.weight];
  for (const asset of assetPaths(document.body.toString('utf8'))) resources.push((await weigh(baseUrl, asset, cookie)).weight);
  return {
    page,
    requests: resources.length,
    totalWireBytes: resources.reduce((total, resource) => total + resource.wireBytes + resource.headerBytes, 0),
    totalBytes: resources.reduce((total, resource) => total + resource.bytes, 0),
    resources,
  };
}

// ---- Chromium ----

export interface BrowserLoad {
  requests: number;
  /** Everything received for the page's resources (Chromium's encodedDataLength: headers + bodies). */
  transferBytes: number;
  firstContentfulPaintMs: number;
  domContentLoadedMs: number;
  loadMs: number;
  /** The chat's WebSocket is open: typing and sending work. For the login page, the load event. */
  usableMs: number;
}

export interface BrowserPageResult {
  page: string;
  cpuThrottle: number;
  loads: number;
  cold: BrowserLoad;
  /** The same page opened again in the same browser (its cache warm). */
  repeat: BrowserLoad;
}

// Runs in the page before its own scripts: notes when the first WebSocket opens.
const watchSockets = `(() => {
  const Native = window.WebSocket;
  window.__benchSocketOpenAt = undefined;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('open', () => { window.__benchSocketOpenAt ??= performance.now(); });
    }
  };
})();`;

class NetworkTally {
  requests = new Map<string, { url: string; cached: boolean; bytes: number }>();

  constructor(session: CDPSession) {
    session.on('Network.requestWillBeSent', (event) => {
      if (event.type === 'WebSocket' || event.request.url.startsWith('data:')) return;
      this.requests.set(event.requestId, { url: event.request.url, cached: false, bytes: 0 });
    });
    session.on('Network.requestServedFromCache', (event) => {
      const request = this.requests.get(event.requestId);
      if (request) request.cached = true;
    });
    session.on('Network.responseReceived', (event) => {
      const request = this.requests.get(event.requestId);
      if (request && (event.response.fromDiskCache || event.response.fromServiceWorker || event.response.fromPrefetchCache)) request.cached = true;
    });
    session.on('Network.loadingFinished', (event) => {
      const request = this.requests.get(event.requestId);
      if (request) request.bytes = event.encodedDataLength;
    });
  }

  reset(): void {
    this.requests.clear();
  }

  /** Requests that went to the server, and the bytes they brought. */
  totals(): { requests: number; bytes: number } {
    const fetched = [...this.requests.values()].filter((request) => !request.cached);
    return { requests: fetched.length, bytes: fetched.reduce((total, request) => total + request.bytes, 0) };
  }
}

async function timeLoad(page: Page, tally: NetworkTally, url: string, waitForSocket: boolean): Promise<BrowserLoad> {
  tally.reset();
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  if (waitForSocket) {
    await page.waitForFunction(() => (window as unknown as { __benchSocketOpenAt?: number }).__benchSocketOpenAt !== undefined, undefined, {
      timeout: 30_000,
      polling: 20,
    });
  }
  // Let late requests (the icon) finish before counting.
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
  const timing = await page.evaluate(() => {
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return {
      firstContentfulPaintMs: paint?.startTime ?? Number.NaN,
      domContentLoadedMs: navigation.domContentLoadedEventEnd,
      loadMs: navigation.loadEventEnd,
      socketOpenMs: (window as unknown as { __benchSocketOpenAt?: number }).__benchSocketOpenAt ?? Number.NaN,
    };
  });
  const { requests, bytes } = tally.totals();
  return {
    requests,
    transferBytes: bytes,
    firstContentfulPaintMs: timing.firstContentfulPaintMs,
    domContentLoadedMs: timing.domContentLoadedMs,
    loadMs: timing.loadMs,
    usableMs: waitForSocket ? timing.socketOpenMs : timing.loadMs,
  };
}

function medianLoad(loads: BrowserLoad[]): BrowserLoad {
  const pick = (key: keyof BrowserLoad) => round(median(loads.map((load) => load[key])), 1);
  return {
    requests: pick('requests'),
    transferBytes: pick('transferBytes'),
    firstContentfulPaintMs: pick('firstContentfulPaintMs'),
    domContentLoadedMs: pick('domContentLoadedMs'),
    loadMs: pick('loadMs'),
    usableMs: pick('usableMs'),
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), headless: true, args: chromiumArgs, timeout: 60_000 });
}

/** Opens `path` `loads` times, each in a fresh phone-sized context (cold cache), then once more warm. */
export async function measurePageInBrowser(
  browser: Browser,
  baseUrl: string,
  path: string,
  options: { cookie?: string; cpuThrottle: number; loads: number; waitForSocket: boolean },
): Promise<BrowserPageResult> {
  const cold: BrowserLoad[] = [];
  const repeat: BrowserLoad[] = [];
  for (let index = 0; index < options.loads; index++) {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
      userAgent: phoneUserAgent,
    });
    try {
      context.setDefaultTimeout(30_000);
      if (options.cookie) {
        const cookies = options.cookie.split('; ').map((pair) => {
          const at = pair.indexOf('=');
          return { name: pair.slice(0, at), value: pair.slice(at + 1), url: baseUrl };
        });
        await context.addCookies(cookies);
      }
      await context.addInitScript(watchSockets);
      const page = await context.newPage();
      const session = await context.newCDPSession(page);
      await session.send('Network.enable');
      await session.send('Emulation.setCPUThrottlingRate', { rate: options.cpuThrottle });
      const tally = new NetworkTally(session);
      cold.push(await timeLoad(page, tally, `${baseUrl}${path}`, options.waitForSocket));
      repeat.push(await timeLoad(page, tally, `${baseUrl}${path}`, options.waitForSocket));
    } finally {
      await context.close();
    }
  }
  return { page: path, cpuThrottle: options.cpuThrottle, loads: options.loads, cold: medianLoad(cold), repeat: medianLoad(repeat) };
}
