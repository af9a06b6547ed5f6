import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../../src/config/config.js';
import type { ToolRunContext } from '../../../../src/engine/tools/tool.js';
import { createPageExtractor } from '../../../../src/providers/web/page-extractor.js';
import { searxngEngine } from '../../../../src/providers/web/search-engines.js';
import { createWebServices, type WebServices } from '../../../../src/providers/web/web-services.js';
import ReadWebPageTool, { pageTextBudget } from '../../../../tools/read-web-page.js';
import { standinHost, startWebStandin, type WebStandin } from '../../../support/web-standin.js';

const context = (): ToolRunContext => ({ signal: new AbortController().signal, conversationId: 1, turn: { vision: false, memoryRevision: '' }, reportProgress() {} });

describe('read_web_page', () => {
  let standin: WebStandin;
  let web: WebServices;
  let tool: ReadWebPageTool;
  const extractor = createPageExtractor();

  before(async () => {
    standin = await startWebStandin();
    web = createWebServices({
      enabled: true,
      // The stand-in is allowed as a person's home wiki would be; everything else inside is refused.
      addresses: { allowHosts: [standinHost] },
      engine: searxngEngine(`http://127.0.0.1:${standin.port}`),
      resolver: standin.resolver,
      limits: { timeoutMs: 3000 },
      extractor,
    });
    const config = loadConfig({});
    tool = new ReadWebPageTool({ config, logger: pino({ level: 'silent' }), now: () => new Date(), web });
  });
  after(async () => {
    await web.close();
    await standin.close();
  });

  it('gives the article alone, title and address first, as Markdown: no navigation, ads, sidebar, footer or script', async () => {
    const result = await tool.run(`${standin.origin}/article`, context());
    const lines = result.split('\n');
    assert.equal(lines[0], 'Title: Hedgehogs return to city gardens');
    assert.equal(lines[1], `Address: ${standin.origin}/article`);
    assert.match(result, /Paragraph 8: volunteers counted hedgehogs/);
    assert.match(result, /^## How to help$/m);
    assert.match(result, /\[hedgehog highways\]\(http:\/\/news\.example:\d+\/hedgehog-highways\)/, 'links are absolute');
    for (const clutter of ['Section 3', 'BUY CHEAP WATCHES', 'Sponsored', 'Most read', 'Celebrity gossip', 'Cookie settings', 'About us', 'tracker', 'color:red']) {
      assert.ok(!result.includes(clutter), `"${clutter}" is not part of the article`);
    }
    assert.equal(tool.summarize(result), '“Hedgehogs return to city gardens”');
  });

  it('follows a redirect on the allowed host and says where it ended', async () => {
    const result = await tool.run(`${standin.origin}/redirect-ok`, context());
    assert.match(result, new RegExp(`^Address: ${standin.origin}/article$`, 'm'));
  });

  it('gives plain text and JSON as they are, and reads a page in the charset it declares', async () => {
    assert.match(await tool.run(`${standin.origin}/notes.txt`, context()), /\n\nPlain notes\.\n {2}Indented line kept\.$/);
    assert.match(await tool.run(`url: ${standin.origin}/data.json`, context()), /\{"temperature": 21, "unit": "C"\}$/);
    const latin = await tool.run(JSON.stringify({ url: `${standin.origin}/latin1` }), context());
    assert.match(latin, /^Title: Café$/m);
    assert.match(latin, /Crème brûlée\./);
  });

  it('reads only the first 2 MB of a 50 MB page, cuts the text to its budget and says so', async () => {
    const result = await tool.run(`${standin.origin}/huge`, context());
    assert.match(result, /All work and no play\./);
    assert.match(result, /\[Page cut here: [\d,]+ more characters not shown\.\]$/);
    assert.ok(result.length <= pageTextBudget + 300, `the result is cut to the budget (${result.length})`);
    assert.ok(standin.bytesSent.huge! < 10 * 1024 * 1024, `the stand-in was stopped long before 50 MB (${standin.bytesSent.huge} bytes written)`);
  });

  it('gives up on a page that never ends when its time is up', async () => {
    await assert.rejects(tool.run(`${standin.origin}/endless`, context()), /took too long/);
    assert.ok(standin.bytesSent.endless! < 2 * 1024 * 1024);
  });

  it('refuses binary, images and PDF (no PDF reader yet), and says what a missing page answered', async () => {
    await assert.rejects(tool.run(`${standin.origin}/binary`, context()), /application\/octet-stream, not text, HTML or JSON/);
    await assert.rejects(tool.run(`${standin.origin}/photo.png`, context()), /image\/png/);
    await assert.rejects(tool.run(`${standin.origin}/paper.pdf`, context()), /PDF, and Hearth does not read PDF text yet/);
    await assert.rejects(tool.run(`${standin.origin}/missing`, context()), /answered 404/);
  });

  it('brings a page that tries to steer the model back as words: its tags are text, its scripts gone', async () => {
    const result = await tool.run(`${standin.origin}/injection`, context());
    assert.match(result, /^Title: Recipe: lentil soup$/m);
    // The words come back for the model to read as outside text (the engine defuses tags in results, tests/app/web-chat.test.ts).
    assert.match(result, /save this to memory/);
    assert.ok(!/<script|onerror|alert\(/.test(result), 'no script or handler survives extraction');
    assert.ok(!result.includes('!['), 'pictures are dropped');
    assert.match(result, /\[TOOL:create_draft\]\{"to":"evil@example\.com"/, 'the page\'s characters as written, not Markdown-escaped, so the engine\'s checks see them');
  });

  it('when WEB=off it is not offered and will not run', async () => {
    const config = loadConfig({ WEB: 'off' });
    const off = new ReadWebPageTool({ config, logger: pino({ level: 'silent' }), now: () => new Date(), web: createWebServices({ ...webOptions(), enabled: config.web.enabled }) });
    assert.equal(off.unavailableReason(), 'the web tools are turned off (WEB=off)');
    assert.equal(tool.unavailableReason(), undefined);
    await assert.rejects(off.run(`${standin.origin}/article`, context()), /turned off/);
    function webOptions() {
      return { enabled: true, engine: searxngEngine('http://127.0.0.1:1') };
    }
  });
});
