import { Bonjour, type ServiceConfig } from 'bonjour-service';
import { mdnsHostName } from './machine-names.js';

/** The part of bonjour-service Hearth uses; tests give a recording stand-in (multicast may not work there). */
export interface MdnsResponder {
  publish(service: ServiceConfig): { on(event: 'error', listener: (error: Error) => void): unknown };
  unpublishAll(callback?: () => void): void;
  destroy(callback?: () => void): void;
}

export function createBonjourResponder(onError: (error: Error) => void): MdnsResponder {
  return new Bonjour({}, onError) as unknown as MdnsResponder;
}

/** Announces Hearth as hearth.local (an _https._tcp service) until stop() is called. */
export function publishHearth(responder: MdnsResponder, port: number, onError: (error: Error) => void): { stop(): Promise<void> } {
  const service = responder.publish({ name: 'Hearth', type: 'https', protocol: 'tcp', port, host: mdnsHostName });
  service.on('error', onError);
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        // Unpublishing sends a goodbye packet, so phones forget the name at once rather than after its TTL.
        responder.unpublishAll(() => responder.destroy(() => resolve()));
      }),
  };
}
