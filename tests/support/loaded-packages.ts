import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

/*
 * Which npm packages this process has loaded, for tests of what start-up leaves unloaded. ES
 * modules are seen by a module hook (registered by watchLoadedPackages(), before the code under
 * test is imported), CommonJS ones in require's cache. A file that uses this runs in a process of
 * its own (tests/support/run-tests.mjs sees the name), so the list is that file's own.
 */

// Runs on Node's module hooks thread: every module URL loaded from now on goes to the test's port.
const hooks = `
let port;
export function initialize(data) {
  port = data.port;
  port.on('message', (message) => port.postMessage(message));
}
export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
`;

export function packageOf(file: string): string | undefined {
  return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
}

export interface LoadedPackages {
  /** Every package loaded so far (its name as in package.json). */
  names(): Promise<Set<string>>;
  /** Every module loaded so far: ES modules by URL, CommonJS ones by path. */
  files(): Promise<string[]>;
}

export function watchLoadedPackages(): LoadedPackages {
  const { port1, port2 } = new MessageChannel();
  const urls = new Set<string>();
  let flushed: (() => void) | undefined;
  port1.on('message', (message: string) => {
    if (message === 'flush') flushed?.();
    else urls.add(message);
  });
  port1.unref();
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });
  const require = createRequire(import.meta.url);
  async function files(): Promise<string[]> {
    // The hooks thread echoes "flush" after every URL it posted before it: then all are in.
    port1.ref();
    await new Promise<void>((resolve) => {
      flushed = resolve;
      port1.postMessage('flush');
    });
    port1.unref();
    return [...urls, ...Object.keys(require.cache)];
  }
  return {
    async names() {
      return new Set((await files()).map(packageOf).filter((name): name is string => name !== undefined));
    },
    files,
  };
}
