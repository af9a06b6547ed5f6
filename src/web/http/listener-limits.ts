import type net from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/** What every listener (the main port, HTTPS or not, and the plain-HTTP set-up port) allows one client. */
export interface ListenerLimits {
  /** Time to receive a whole request, headers and body (Fastify's default, 0, is never). */
  requestTimeoutMs: number;
  /** Time to receive a request's headers; a socket that sends nothing is cut after this too. */
  headersTimeoutMs: number;
  /** A TLS socket that has not finished its handshake by then is cut (Node's default is 120 s). */
  handshakeTimeoutMs: number;
  /** Open connections one address may hold on one listener; more are closed as they arrive. */
  connectionsPerAddress: number;
  /** Addresses the per-address cap leaves alone: this machine and a trusted proxy. */
  uncappedAddress: (address: string) => boolean;
}

/**
 * The defaults. A browser opens at most 6 connections to a host plus one WebSocket per open
 * tab, so 64 per address is far above what a person's device uses. Loopback is left uncapped:
 * a reverse proxy on this machine carries every user, and a program here can do worse anyway.
 */
export function listenerLimits(options: { trustProxy?: string; overrides?: Partial<ListenerLimits> } = {}): ListenerLimits {
  const overrides: Partial<ListenerLimits> = Object.fromEntries(Object.entries(options.overrides ?? {}).filter(([, value]) => value !== undefined));
  const requestTimeoutMs = overrides.requestTimeoutMs ?? 60_000;
  // The same address syntax Fastify's trustProxy reads (addresses, CIDRs, "loopback"...).
  const trusted = proxyAddr.compile(['loopback', ...(options.trustProxy?.split(',').map((entry) => entry.trim()) ?? [])]);
  return {
    requestTimeoutMs,
    headersTimeoutMs: Math.min(requestTimeoutMs, 20_000),
    handshakeTimeoutMs: 10_000,
    connectionsPerAddress: 64,
    uncappedAddress: (address) => trusted(address, 0),
    ...overrides,
  };
}

/** Fastify options that apply the time-outs: `requestTimeout`, `http`, and `tls` to merge into `https`. */
export function fastifyTimeouts(limits: ListenerLimits) {
  const http = {
    headersTimeout: limits.headersTimeoutMs,
    // Node checks the two time-outs only this often (default 30 s): a quarter of the time-out, at most 5 s.
    connectionsCheckingInterval: Math.min(Math.max(Math.floor(limits.requestTimeoutMs / 4), 50), 5_000),
  };
  return { requestTimeout: limits.requestTimeoutMs, http, tls: { ...http, handshakeTimeout: limits.handshakeTimeoutMs } };
}

/**
 * Closes a new connection when its address already holds `connectionsPerAddress` on this
 * server. Counted per listener, so sockets held on the set-up port never block the main port.
 */
export function capConnectionsPerAddress(server: net.Server, limits: Pick<ListenerLimits, 'connectionsPerAddress' | 'uncappedAddress'>): void {
  const open = new Map<string, number>();
  // 'connection' is the raw TCP socket, before any TLS handshake or HTTP parsing is worth doing.
  server.on('connection', (socket: net.Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return void socket.destroy();
    if (limits.uncappedAddress(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= limits.connectionsPerAddress) return void socket.destroy();
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
