import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import type { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.js';
import type { ListenerLimits } from '../http/listener-limits.js';
import { createLocalTls, type LocalTls, type LocalTlsSources } from './local-tls.js';
import { mdnsHostName } from './machine-names.js';
import { createBonjourResponder, publishHearth, type MdnsResponder } from './mdns.js';
import { setupPaths, registerSetupRoutes } from './setup-routes.js';
import { startSetupListener, type SetupListener } from './setup-listener.js';
import { setupStartupLines } from './startup-qr.js';

/** Test seams for TLS=auto; by default the real clock, network interfaces and mDNS. */
export interface LocalTlsDependencies {
  sources?: Partial<LocalTlsSources>;
  createMdnsResponder?: (onError: (error: Error) => void) => MdnsResponder;
  /** How often to check whether the certificate needs renewing (default hourly: cheap unless it is due). */
  renewalIntervalMs?: number;
}

export interface LocalTlsService {
  tls: LocalTls;
  /** Checks now, and swaps a renewed certificate into the running server; returns why it renewed. */
  renewNow(): string | undefined;
  /** After listen: the plain-HTTP set-up listener and mDNS (each only when configured). */
  announce(): Promise<void>;
  setupPort(): number | undefined;
  /** Start-up lines with a QR code; address is one the LAN can open, e.g. https://192.168.1.5:8888. */
  startupLines(address: string): string[];
}

/** Makes or loads the certificate before Fastify is created, since Fastify takes it at construction. */
export function prepareLocalTls(config: Config, dependencies: LocalTlsDependencies = {}): LocalTls {
  return createLocalTls({ dataDir: config.dataDir, extraNames: config.tlsNames, sources: dependencies.sources });
}

/** The set-up routes, the hourly renewal check, the set-up listener and mDNS, stopped with the app. */
export function serveLocalTls(
  app: FastifyInstance,
  options: { tls: LocalTls; config: Config; templates: Eta; projectRoot: string; limits: ListenerLimits; dependencies?: LocalTlsDependencies },
): LocalTlsService {
  const { tls, config } = options;
  const dependencies = options.dependencies ?? {};
  const httpsPort = () => (app.server.address() as AddressInfo | null)?.port ?? config.port;
  const machineNames = () => tls.names().permitted;
  registerSetupRoutes(app, { authorityCertificatePem: tls.authorityCertificatePem, httpsPort, machineNames });

  if (tls.madeAtStart) app.log.info({ reason: tls.madeAtStart }, 'made a new HTTPS certificate');
  if (tls.authorityTooBroad) {
    app.log.warn({ reason: tls.authorityTooBroad }, 'the local CA was made by an older Hearth and could also vouch for e-mail or code; move DATA_DIR/tls away to make a new CA (phones must install it again)');
  }
  const refused = tls.names().refused;
  if (refused.length > 0) {
    app.log.warn({ refused }, 'these names are outside what the local CA may sign; move DATA_DIR/tls away to make a new CA (phones must install it again)');
  }

  const renewNow = () => {
    const reason = tls.renewIfDue();
    if (reason !== undefined) {
      // New connections get the new certificate; open ones keep theirs. No restart needed.
      (app.server as unknown as TlsServer).setSecureContext({ key: tls.current().privateKeyPem, cert: tls.current().certificatePem });
      app.log.info({ reason }, 'renewed the HTTPS certificate');
    }
    return reason;
  };
  const renewalTimer = setInterval(() => {
    try {
      renewNow();
    } catch (error) {
      app.log.error({ err: error }, 'could not renew the HTTPS certificate; the current one stays in use');
    }
  }, dependencies.renewalIntervalMs ?? 3_600_000).unref();

  let setupListener: SetupListener | undefined;
  let mdns: { stop(): Promise<void> } | undefined;
  app.addHook('onClose', async () => {
    clearInterval(renewalTimer);
    await setupListener?.close();
    await mdns?.stop();
  });

  return {
    tls,
    renewNow,
    setupPort: () => setupListener?.port,
    async announce() {
      const host = (app.server.address() as AddressInfo | null)?.address ?? config.host;
      if (config.setupPort !== undefined && !setupListener) {
        try {
          setupListener = await startSetupListener({
            host,
            port: config.setupPort,
            httpsPort,
            machineNames,
            authorityCertificatePem: tls.authorityCertificatePem,
            templates: options.templates,
            projectRoot: options.projectRoot,
            limits: options.limits,
          });
        } catch (error) {
          app.log.error({ err: error, port: config.setupPort }, 'the plain-HTTP set-up page could not start (SETUP_PORT); HTTPS works on');
        }
      }
      if (config.mdns && !mdns) {
        const onError = (error: Error) => app.log.warn({ err: error }, `mDNS: could not announce ${mdnsHostName}`);
        const responder = (dependencies.createMdnsResponder ?? createBonjourResponder)(onError);
        mdns = publishHearth(responder, httpsPort(), onError);
      }
    },
    startupLines(address: string) {
      const url = new URL(address);
      url.protocol = 'https:';
      url.port = String(httpsPort());
      const setupAddress = setupListener ? `http://${url.hostname}:${setupListener.port}${setupPaths.page}` : undefined;
      return setupStartupLines({
        httpsAddress: url.origin,
        setupAddress,
        mdnsAddress: mdns ? `https://${mdnsHostName}:${httpsPort()}` : undefined,
      });
    },
  };
}
