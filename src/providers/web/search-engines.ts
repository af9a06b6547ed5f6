/*
 * The search services web_search can ask, each turned into the same short list. The person picks
 * one by configuration (SEARXNG_URL, BRAVE_SEARCH_API_KEY, else DuckDuckGo), so the addresses
 * here are theirs, not the model's: they are not put through the page reader's address checks.
 */
import type { Agent } from 'node:https';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchEngine {
  /** Who sees the queries, as the tools page and docs/web.md say it. */
  readonly name: string;
  search(query: string, signal: AbortSignal, count: number): Promise<SearchResult[]>;
}

/** A search service answered with an error; its message goes back to the model. */
export class SearchFailure extends Error {
  override name = 'SearchFailure';
}

async function getJson(url: URL, signal: AbortSignal, headers: Record<string, string>, fetchImplementation: typeof fetch): Promise<unknown> {
  const response = await fetchImplementation(url, { signal, headers: { accept: 'application/json', ...headers } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new SearchFailure(`${url.host} answered ${response.status} ${response.statusText}`.trim() + '.');
  }
  try {
    return await response.json();
  } catch {
    throw new SearchFailure(`${url.host} did not answer with JSON.`);
  }
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');
/** Snippets come with <strong> marks and entities: the words only. */
const plain = (value: unknown): string =>
  textOf(value)
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[entity] ?? '')
    .replace(/\s+/g, ' ')
    .trim();

/** A SearXNG instance's JSON API (`/search?q=…&format=json`; the instance must enable the json format). */
export function searxngEngine(baseUrl: string, fetchImplementation: typeof fetch = fetch): SearchEngine {
  const root = baseUrl.replace(/\/+$/, '');
  return {
    name: `SearXNG at ${new URL(root).host}`,
    async search(query, signal, count) {
      const url = new URL(`${root}/search`);
      url.search = new URLSearchParams({ q: query, format: 'json' }).toString();
      const answer = (await getJson(url, signal, {}, fetchImplementation)) as { results?: unknown };
      if (!Array.isArray(answer.results)) throw new SearchFailure(`${url.host} gave no results list (is format=json enabled in its settings.yml?).`);
      return (answer.results as Record<string, unknown>[]).slice(0, count).map((result) => ({ title: plain(result.title), url: textOf(result.url), snippet: plain(result.content) }));
    },
  };
}

/** Brave's Web Search API (a free key at brave.com/search/api). */
export function braveEngine(apiKey: string, baseUrl = 'https://api.search.brave.com', fetchImplementation: typeof fetch = fetch): SearchEngine {
  return {
    name: 'Brave Search',
    async search(query, signal, count) {
      const url = new URL('/res/v1/web/search', baseUrl);
      url.search = new URLSearchParams({ q: query, count: String(count) }).toString();
      const answer = (await getJson(url, signal, { 'x-subscription-token': apiKey }, fetchImplementation)) as { web?: { results?: unknown } };
      const results = Array.isArray(answer.web?.results) ? (answer.web.results as Record<string, unknown>[]) : [];
      return results.slice(0, count).map((result) => ({ title: plain(result.title), url: textOf(result.url), snippet: plain(result.description) }));
    },
  };
}

/**
 * DuckDuckGo with no key, through duck-duck-scrape (loaded on first search). Its addresses are
 * fixed in the library; `agent` (tests) carries its requests elsewhere.
 */
export function duckDuckGoEngine(options: { agent?: Agent } = {}): SearchEngine {
  return {
    name: 'DuckDuckGo',
    async search(query, signal, count) {
      const { search, SafeSearchType } = await import('duck-duck-scrape');
      // The library's own browser-like headers: a needleOptions object replaces them.
      const { COMMON_HEADERS } = await import('duck-duck-scrape/lib/util.js');
      const needleOptions = { headers: COMMON_HEADERS, signal, open_timeout: 10_000, response_timeout: 10_000, read_timeout: 10_000, ...(options.agent ? { agent: options.agent } : {}) };
      let found;
      try {
        found = await search(query, { safeSearch: SafeSearchType.MODERATE }, needleOptions as Parameters<typeof search>[2]);
      } catch (error) {
        throw new SearchFailure(`DuckDuckGo did not answer: ${(error as Error).message}`);
      }
      return found.results.slice(0, count).map((result) => ({ title: plain(result.title), url: result.url, snippet: plain(result.description) }));
    },
  };
}
