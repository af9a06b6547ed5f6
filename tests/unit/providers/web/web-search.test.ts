import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../../src/config/config.js';
import type { ToolRunContext } from '../../../../src/engine/tools/tool.js';
import { searchEngineFromConfig, webServicesFromConfig, type WebTestSeams } from '../../../../src/providers/web/web-services.js';
import WebSearchTool from '../../../../tools/web-search.js';
import { startWebStandin, type WebStandin } from '../../../support/web-standin.js';

const context = (): ToolRunContext => ({ signal: new AbortController().signal, conversationId: 1, turn: { vision: false, memoryRevision: '' }, reportProgress() {} });

describe('web_search', () => {
  let standin: WebStandin;
  before(async () => {
    standin = await startWebStandin();
  });
  after(() => standin.close());

  function searchTool(environment: Record<string, string>, seams: WebTestSeams = {}) {
    const config = loadConfig(environment);
    return new WebSearchTool({ config, logger: pino({ level: 'silent' }), now: () => new Date(), web: webServicesFromConfig(config, seams) });
  }

  it('asks SearXNG’s JSON API when SEARXNG_URL is set, and lists title, address and snippet', async () => {
    const tool = searchTool({ SEARXNG_URL: `http://127.0.0.1:${standin.port}` });
    assert.equal(tool.source, `Built-in: queries go to SearXNG at 127.0.0.1:${standin.port}`);
    const result = await tool.run('hedgehog highways', context());
    const search = standin.searches.at(-1)!;
    assert.equal(search.path, '/search');
    assert.equal(search.query.get('q'), 'hedgehog highways');
    assert.equal(search.query.get('format'), 'json');
    assert.equal(
      result,
      [
        `Results for "hedgehog highways" (from SearXNG at 127.0.0.1:${standin.port}):`,
        '1. Hedgehog highways – a guide',
        '   https://hedgehogs.example/highways',
        '   How to link gardens for hedgehogs & other wildlife.',
        '2. Counting hedgehogs',
        '   https://count.example/2026',
        '   Volunteers counted more hedgehogs this year.',
      ].join('\n'),
    );
    assert.equal(tool.summarize(result), '2 results');
  });

  it('asks Brave with its key when BRAVE_SEARCH_API_KEY is set (and says a refused key)', async () => {
    const tool = searchTool({ BRAVE_SEARCH_API_KEY: 'brave-test-key' }, { braveBaseUrl: `http://127.0.0.1:${standin.port}` });
    assert.equal(tool.source, 'Built-in: queries go to Brave Search');
    const result = await tool.run('{"query": "hedgehogs"}', context());
    assert.equal(standin.searches.at(-1)!.headers['x-subscription-token'], 'brave-test-key');
    assert.match(result, /^1\. Hedgehog highways – a guide\n {3}https:\/\/hedgehogs\.example\/highways/m);
    const wrongKey = searchTool({ BRAVE_SEARCH_API_KEY: 'wrong' }, { braveBaseUrl: `http://127.0.0.1:${standin.port}` });
    await assert.rejects(wrongKey.run('hedgehogs', context()), /The search failed: 127\.0\.0\.1:\d+ answered 401/);
  });

  it('asks DuckDuckGo with no set-up, through duck-duck-scrape reading DuckDuckGo’s own answers', async () => {
    const tool = searchTool({}, { duckDuckGoAgent: standin.duckDuckGoAgent });
    assert.equal(tool.source, 'Built-in: queries go to DuckDuckGo');
    const result = await tool.run('hedgehogs', context());
    const [tokenPage, results] = standin.searches.slice(-2);
    assert.equal(tokenPage!.query.get('q'), 'hedgehogs');
    assert.equal(results!.path, '/d.js');
    assert.equal(results!.query.get('vqd'), '4-123456789012345678901234567890123456');
    assert.match(result, /^1\. Hedgehog highways\n {3}https:\/\/hedgehogs\.example\/highways\n {3}Gaps under fences let hedgehogs roam & feed\.$/m);
    assert.match(result, /^2\. Counting hedgehogs$/m);
  });

  it('prefers SearXNG over Brave over DuckDuckGo, and WEB=off leaves the tool out', async () => {
    assert.equal(searchEngineFromConfig(loadConfig({ SEARXNG_URL: 'http://search.home:8080', BRAVE_SEARCH_API_KEY: 'k' })).name, 'SearXNG at search.home:8080');
    assert.equal(searchEngineFromConfig(loadConfig({ BRAVE_SEARCH_API_KEY: 'k' })).name, 'Brave Search');
    const off = searchTool({ WEB: 'off' });
    assert.equal(off.unavailableReason(), 'the web tools are turned off (WEB=off)');
    await assert.rejects(off.run('hedgehogs', context()), /turned off/);
    assert.throws(() => loadConfig({ WEB: 'maybe' }), /WEB: "maybe" is not on or off/);
    assert.throws(() => loadConfig({ SEARXNG_URL: 'search.home' }), /SEARXNG_URL: "search\.home" is not an http or https URL/);
    assert.throws(() => loadConfig({ WEB_ALLOW: 'wiki.home, bad/host' }), /WEB_ALLOW: "bad\/host" is not a host name or address/);
    assert.deepEqual(loadConfig({ WEB_ALLOW: 'Wiki.Home, 192.168.1.20' }).web.allowHosts, ['wiki.home', '192.168.1.20']);
  });

  it('asks for words to search for', async () => {
    await assert.rejects(searchTool({ SEARXNG_URL: `http://127.0.0.1:${standin.port}` }).run('   ', context()), /Give words to search for/);
  });
});
