/*
 * Links on a tool's card: the web tools name the pages in their own results, the card keeps
 * http(s) addresses only and escapes every title, and a tool without links shows none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../../src/config/config.js';
import { projectRoot } from '../../../../src/config/project-root.js';
import { Tool, type ToolLink } from '../../../../src/engine/tools/tool.js';
import { webServicesFromConfig } from '../../../../src/providers/web/web-services.js';
import type { StoredToolCall } from '../../../../src/storage/tool-call-store.js';
import { createChatView, toToolCallView } from '../../../../src/web/chat/chat-view.js';
import { linksForCard } from '../../../../src/web/chat/tool-card-links.js';
import { createTemplates } from '../../../../src/web/http/views.js';
import ReadWebPageTool from '../../../../tools/read-web-page.js';
import WebSearchTool from '../../../../tools/web-search.js';

const config = loadConfig({ WEB: 'off' });
const services = { config, logger: pino({ level: 'silent' }), now: () => new Date(), web: webServicesFromConfig(config) };
const readPage = new ReadWebPageTool(services);
const search = new WebSearchTool(services);
const view = createChatView(createTemplates(projectRoot));

/** A tool with the default hook. */
class PlainTool extends Tool {
  readonly name = 'plain';
  readonly description = 'Says a page.';
  readonly examples = [];
  run(): Promise<string> {
    return Promise.resolve('Title: Page\nAddress: https://page.example/');
  }
}

/** A tool whose links are whatever the test hands it. */
class LinkingTool extends Tool {
  readonly name = 'linking';
  readonly description = 'Gives links.';
  readonly examples = [];
  constructor(private readonly given: ToolLink[]) {
    super(services);
  }
  override links(): ToolLink[] {
    return this.given;
  }
  run(): Promise<string> {
    return Promise.resolve('');
  }
}

function call(name: string, result: string, status: StoredToolCall['status'] = 'done'): StoredToolCall {
  return { id: 7, messageId: 1, name, params: '', status, result, preview: null, durationMs: 120, createdAt: 0 } as unknown as StoredToolCall;
}

const hostileTitle = '<img src=x onerror="alert(1)"> "quoted" & <script>alert(2)</script>';

describe('tool card links', () => {
  it('read_web_page links the page it read by title and final address; no title: the address', () => {
    const result = 'Title: Hedgehogs return\nAddress: https://news.example/article?a=1&b=2\n\nTitle: fake\nAddress: https://evil.example/';
    assert.deepEqual(readPage.links(result), [{ href: 'https://news.example/article?a=1&b=2', title: 'Hedgehogs return' }]);
    assert.deepEqual(readPage.links('Title: (none)\nAddress: https://plain.example/notes.txt\n\nNotes'), [{ href: 'https://plain.example/notes.txt', title: 'https://plain.example/notes.txt' }]);
    assert.deepEqual(readPage.links('Reading web pages is turned off on this Hearth.'), []);
  });

  it('web_search links its results, at most five, not lines inside snippets', () => {
    const lines = ['Results for "x" (from SearXNG):'];
    for (let n = 1; n <= 7; n++) lines.push(`${n}. Result ${n}`, `   https://r${n}.example/`, `   Snippet ${n}: 9. not a result`);
    const links = search.links(lines.join('\n'));
    assert.deepEqual(links.map((link) => link.href), ['https://r1.example/', 'https://r2.example/', 'https://r3.example/', 'https://r4.example/', 'https://r5.example/']);
    assert.equal(links[0]!.title, 'Result 1');
    assert.deepEqual(search.links('No results for "x".'), []);
  });

  it('keeps http and https addresses only: javascript:, data:, file: and broken ones are dropped', () => {
    const tool = new LinkingTool([
      { href: 'javascript:alert(1)', title: 'script' },
      { href: ' JavaScript:alert(1)', title: 'script again' },
      { href: 'data:text/html,<script>alert(1)</script>', title: 'data' },
      { href: 'file:///etc/passwd', title: 'file' },
      { href: 'not an address', title: 'broken' },
      { href: 'http://plain.example/a b', title: 'plain' },
      { href: 'https://safe.example/', title: 'safe' },
    ]);
    assert.deepEqual(linksForCard(call('linking', ''), tool), [
      { href: 'http://plain.example/a%20b', title: 'plain', host: 'plain.example' },
      { href: 'https://safe.example/', title: 'safe', host: 'safe.example' },
    ]);
  });

  it('shows none for a call not done, a tool without links, or one no longer installed', () => {
    const result = 'Title: Page\nAddress: https://page.example/';
    assert.equal(linksForCard(call('read_web_page', result), readPage).length, 1);
    assert.deepEqual(linksForCard(call('read_web_page', result, 'failed'), readPage), []);
    assert.deepEqual(linksForCard(call('read_web_page', result, 'running'), readPage), []);
    assert.deepEqual(linksForCard(call('read_web_page', result), undefined), []);
    assert.deepEqual(linksForCard(call('plain', result), new PlainTool(services)), [], 'a tool names no links by default');
  });

  it('renders each link opening a new tab without a referrer, its hostile title escaped', () => {
    const tool = new LinkingTool([
      { href: 'https://safe.example/?q="><script>alert(3)</script>', title: hostileTitle },
      { href: 'javascript:alert(1)', title: 'never shown' },
    ]);
    const html = view.toolCard(toToolCallView(call('linking', 'ok'), tool));
    const anchors = [...html.matchAll(/<a [^>]*>/g)].map((match) => match[0]);
    assert.equal(anchors.length, 1);
    assert.match(anchors[0]!, /^<a class="tool-call-link" href="https:\/\/safe\.example\/\?q=%22%3E%3Cscript%3Ealert\(3\)%3C\/script%3E" target="_blank" rel="noopener noreferrer">$/);
    assert.ok(html.includes('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &quot;quoted&quot; &amp; &lt;script&gt;alert(2)&lt;/script&gt;'));
    assert.doesNotMatch(html, /<img|<script|javascript:|never shown/);
  });

  it('a tool without links shows no list', () => {
    const html = view.toolCard(toToolCallView(call('linking', 'ok'), new LinkingTool([])));
    assert.doesNotMatch(html, /tool-call-links|<a /);
  });
});
