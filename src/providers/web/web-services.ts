/*
 * The web for the tools: web_search asks the search service the person configured, and
 * read_web_page reads one page through the address checks (guarded-fetch.ts) and the page worker.
 * Light at start: the search library, the address checks (address-policy.ts, with ipaddr.js), the
 * guarded fetch and the page reader load on first use.
 */
import type { Agent } from 'node:https';
import type { Config } from '../../config/config.js';
import type { AddressPolicy, AddressPolicyOptions } from './address-policy.js';
import type { FetchLimits, Resolver } from './guarded-fetch.js';
import type { PageExtractor } from './page-extractor.js';
import { braveEngine, duckDuckGoEngine, searxngEngine, type SearchEngine, type SearchResult } from './search-engines.js';

export interface WebPage {
  /** The address read, after redirects. */
  url: string;
  title: string;
  /** Markdown for HTML; plain text and JSON as they came. */
  text: string;
  /** The page was longer than the download limit: only its start was read. */
  cut: boolean;
}

export interface WebServicesOptions {
  enabled: boolean;
  /** Which addresses a page read may reach: the checks are made on the first read. */
  addresses?: AddressPolicyOptions;
  engine: SearchEngine;
  resolver?: Resolver;
  limits?: Partial<FetchLimits>;
  extractor?: PageExtractor;
}

const readTypes = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/json', 'text/csv']);
const isRead = (mediaType: string) => readTypes.has(mediaType) || /^application\/[\w.-]+\+json$/.test(mediaType);

function decode(body: Buffer, charset: string | undefined, mediaType: string): string {
  // An HTML page may say its charset in a meta tag instead of the header.
  const declared = charset ?? (mediaType.includes('html') ? /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1] : undefined);
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

export function createWebServices(options: WebServicesOptions) {
  let extractor = options.extractor;
  let policy: AddressPolicy | undefined;

  async function readPage(address: string, signal?: AbortSignal): Promise<WebPage> {
    const { fetchGuarded, WebRefusal } = await import('./guarded-fetch.js');
    policy ??= (await import('./address-policy.js')).createAddressPolicy(options.addresses);
    const fetched = await fetchGuarded(address, {
      policy,
      resolver: options.resolver,
      limits: options.limits,
      signal,
      acceptsType: (mediaType) => {
        if (mediaType === 'application/pdf') throw new WebRefusal(`Not read: ${address} is a PDF, and Hearth does not read PDF text yet.`);
        return isRead(mediaType);
      },
    });
    const text = decode(fetched.body, fetched.charset, fetched.mediaType);
    if (fetched.mediaType === 'text/html' || fetched.mediaType === 'application/xhtml+xml') {
      extractor ??= (await import('./page-extractor.js')).createPageExtractor();
      const page = await extractor.extract(text, fetched.url);
      return { url: fetched.url, title: page.title, text: page.markdown, cut: fetched.cut };
    }
    return { url: fetched.url, title: '', text: text.trim(), cut: fetched.cut };
  }

  return {
    enabled: options.enabled,
    /** Who sees the queries: "DuckDuckGo", "Brave Search", "SearXNG at search.home". */
    searchService: options.engine.name,
    search(query: string, signal: AbortSignal, count = 8): Promise<SearchResult[]> {
      return options.engine.search(query, signal, count);
    },
    readPage,
    async close(): Promise<void> {
      await extractor?.close();
    },
  };
}

export type WebServices = ReturnType<typeof createWebServices>;

// The web tools are handed this: the engine's ToolServices gains it here.
declare module '../../engine/tools/tool.js' {
  interface ToolServices {
    /** Web search and page reading, shared by web_search and read_web_page. */
    web: WebServices;
  }
}

export interface WebTestSeams {
  resolver?: Resolver;
  limits?: Partial<FetchLimits>;
  braveBaseUrl?: string;
  duckDuckGoAgent?: Agent;
}

/** The search service the configuration names: SearXNG, else Brave with a key, else DuckDuckGo. */
export function searchEngineFromConfig(config: Config, seams: WebTestSeams = {}): SearchEngine {
  if (config.web.searxngUrl) return searxngEngine(config.web.searxngUrl);
  if (config.web.braveApiKey) return braveEngine(config.web.braveApiKey, seams.braveBaseUrl);
  return duckDuckGoEngine({ agent: seams.duckDuckGoAgent });
}

export function webServicesFromConfig(config: Config, seams: WebTestSeams = {}): WebServices {
  return createWebServices({
    enabled: config.web.enabled,
    // Hearth's own ports are never read on this machine, whatever WEB_ALLOW says.
    addresses: { allowHosts: config.web.allowHosts, ownPorts: [config.port, ...(config.setupPort ? [config.setupPort] : [])] },
    engine: searchEngineFromConfig(config, seams),
    resolver: seams.resolver,
    limits: seams.limits,
  });
}
