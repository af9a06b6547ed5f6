import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { bareHost } from './address-policy.js';

/** A read the policy or the limits refused; its message goes back to the model as it is. */
export class WebRefusal extends Error {
  override name = 'WebRefusal';
}

/** One resolved address, as dns.lookup gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup by default; tests give their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const defaultFetchLimits: FetchLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 };

export interface GuardedFetchOptions {
  policy: AddressPolicy;
  resolver?: Resolver;
  limits?: Partial<FetchLimits>;
  signal?: AbortSignal;
  /** Whether a response's media type (such as text/html) is one that is read at all. */
  acceptsType: (mediaType: string) => boolean;
  userAgent?: string;
}

export interface FetchedPage {
  /** The address after redirects. */
  url: string;
  status: number;
  /** The media type, lowercase, without parameters (text/html). */
  mediaType: string;
  charset: string | undefined;
  body: Buffer;
  /** The body was longer than the limit: only its start is here. */
  cut: boolean;
}

/**
 * A lookup for the socket that resolves once, refuses when any address the name has is refused
 * (a rebinding name mixes a public and a private one), and hands the socket the address it
 * checked, so nothing resolves the name a second time between the check and the connection.
 */
function guardedLookup(policy: AddressPolicy, resolver: Resolver, port: number): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (found) => {
        const refusal = found.length === 0 ? `${hostname} has no address` : found.map((entry) => policy.refuseAddress(hostname, entry.address, port)).find(Boolean);
        if (refusal) return callback(new WebRefusal(`Not read: ${refusal}.`), '', 0);
        const wanted = options.family === 4 || options.family === 6 ? found.filter((entry) => entry.family === options.family) : found;
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

function mediaTypeOf(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  const charset = parameters.map((parameter) => /^\s*charset\s*=\s*"?([^";]+)"?/i.exec(parameter)?.[1]).find(Boolean);
  return { mediaType: type.trim().toLowerCase(), charset: charset?.trim().toLowerCase() };
}

/** One request to one checked address: the response head, or a refusal. */
function requestOnce(url: URL, options: GuardedFetchOptions, resolver: Resolver, signal: AbortSignal): Promise<http.IncomingMessage> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = bareHost(url.hostname);
  const hostRefusal = options.policy.refuseHost(host);
  if (hostRefusal) return Promise.reject(new WebRefusal(`Not read: ${hostRefusal}.`));
  // An address written in the URL (127.0.0.1, [::1], 2130706433 which URL reads as 127.0.0.1) is never looked up: check it here.
  if (net.isIP(host) !== 0) {
    const refusal = options.policy.refuseAddress(host, host, port);
    if (refusal) return Promise.reject(new WebRefusal(`Not read: ${refusal}.`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'GET',
      agent: false, // a connection of its own: no socket reused from another host's check
      lookup: guardedLookup(options.policy, resolver, port),
      signal,
      headers: {
        'user-agent': options.userAgent ?? 'Mozilla/5.0 (compatible; Hearth; +https://github.com/)',
        accept: 'text/html,application/xhtml+xml,text/plain,application/json,application/pdf;q=0.9,*/*;q=0.1',
        'accept-encoding': 'identity',
      },
    });
    request.on('response', (response) => {
      // Belt and braces: the socket is connected where the check said.
      const remote = response.socket.remoteAddress;
      const refusal = remote === undefined ? undefined : options.policy.refuseAddress(host, remote, port);
      if (refusal) {
        response.destroy();
        reject(new WebRefusal(`Not read: ${refusal}.`));
      } else resolve(response);
    });
    request.on('error', (error) => reject(error instanceof WebRefusal ? error : explainNetworkError(error, url, signal)));
    request.end();
  });
}

function explainNetworkError(error: Error & { code?: string; cause?: unknown }, url: URL, signal: AbortSignal): Error {
  if (signal.aborted) return new WebRefusal(signal.reason instanceof WebRefusal ? signal.reason.message : `Stopped: ${url.host} took too long.`);
  if (error.cause instanceof WebRefusal) return error.cause;
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return new WebRefusal(`${url.hostname} was not found (no such name).`);
  if (error.code === 'ECONNREFUSED') return new WebRefusal(`${url.host} refused the connection.`);
  return new WebRefusal(`Could not reach ${url.host}: ${error.message}`);
}

/** Reads a body up to the limit; a longer one is cut there and the connection closed. */
async function readBody(response: http.IncomingMessage, maxBytes: number): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      response.destroy();
      return { body: Buffer.concat(chunks), cut: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), cut: false };
}

/**
 * GET a page the model asked for: http and https only, every address checked after resolution
 * and again at each redirect (at most 5), at most 2 MB read and 15 s in all, and only the media
 * types the caller reads.
 */
export async function fetchGuarded(address: string, options: GuardedFetchOptions): Promise<FetchedPage> {
  const limits = { ...defaultFetchLimits, ...options.limits };
  const resolver = options.resolver ?? systemResolver;
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new WebRefusal(`"${address}" is not a web address (expected e.g. https://example.com/page).`);
  }
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebRefusal(`Not read: only http and https addresses are read, not ${url.protocol}.`);
    if (url.username || url.password) throw new WebRefusal('Not read: the address carries a user name or password.');
    const response = await requestOnce(url, options, resolver, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (redirects >= limits.maxRedirects) throw new WebRefusal(`Not read: more than ${limits.maxRedirects} redirects.`);
      url = new URL(location, url);
      continue;
    }
    const { mediaType, charset } = mediaTypeOf(response.headers['content-type']);
    if (status >= 400) {
      response.destroy();
      throw new WebRefusal(`${url.href} answered ${status} ${response.statusMessage ?? ''}`.trim() + '.');
    }
    let accepted: boolean;
    try {
      accepted = options.acceptsType(mediaType);
    } catch (error) {
      response.destroy();
      throw error;
    }
    if (!accepted) {
      response.destroy();
      throw new WebRefusal(`Not read: ${url.href} is ${mediaType || 'of no stated type'}, not text, HTML or JSON.`);
    }
    try {
      const { body, cut } = await readBody(response, limits.maxBytes);
      return { url: url.href, status, mediaType, charset, body, cut };
    } catch (error) {
      throw explainNetworkError(error as Error, url, signal);
    }
  }
}
