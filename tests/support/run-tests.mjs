// @ts-check
/*
 * `npm test`: compiles src/, tools/ and tests/ to JavaScript once, then runs the given test files
 * from that output with plain `node --test`.
 *
 * Why: under `node --import tsx` every test file's process pays for tsx itself (its hooks thread
 * and esbuild) and for sending every module of Fastify, the SDKs and our sources through those
 * hooks: about 1.5 s of CPU per file, most of what the fast tier cost. esbuild (the compiler tsx
 * uses, so the JavaScript is the same) compiles everything here in well under a second.
 *
 * Never stale: each run compiles into a folder of its own, made fresh from the sources on disk,
 * and removes it when the tests end (also on Ctrl-C), so nothing is left behind and two runs never
 * share output. Inline source maps and --enable-source-maps keep failures pointing at the .ts lines.
 *
 * Slowest first: `node --test` starts its processes in the order given, so one long file started
 * late would run alone at the end while the other core idles. The files that take longest (mostly
 * waiting on child processes, sockets and streams) start first, and each shared process below
 * gets one of the longer files.
 *
 * Usage: node tests/support/run-tests.mjs [--test-concurrency=N …node flags] file.test.ts …
 * A single file still runs from source too: node --import tsx --test tests/app/x.test.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceFolders = ['src', 'tools', 'tests'];
const outputFolder = path.join(root, '.test-build', `run-${process.pid}`);

const nodeFlags = process.argv.slice(2).filter((argument) => argument.startsWith('--'));
const namedFiles = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
if (namedFiles.length === 0) throw new Error('run-tests: name the test files to run');

/** The longest files of `npm test` (wall time in a shared process on 2 cores, 2026-11-28), longest first. */
const slowestFiles = [
  'tests/unit/providers/mcp/mcp-servers.test.ts',
  'tests/app/tool-loop.test.ts',
  'tests/unit/engine/markdown/markdown.test.ts',
  'tests/app/tls-server.test.ts',
  'tests/app/chat.test.ts',
  'tests/app/web-chat.test.ts',
  'tests/app/mcp-app.test.ts',
  'tests/app/openai-chat.test.ts',
  'tests/app/mcp-chat.test.ts',
  'tests/app/security.test.ts',
  'tests/app/login-limits.test.ts',
  'tests/unit/web/tls/tls-certificates.test.ts',
  'tests/unit/support/ollama-standin.test.ts',
  'tests/app/chat-titles.test.ts',
];
const rank = (file) => {
  const index = slowestFiles.indexOf(path.relative(root, path.resolve(root, file)));
  return index === -1 ? slowestFiles.length : index;
};
const testFiles = namedFiles.map((file, order) => ({ file, order })).sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order).map(({ file }) => file);

/** Every TypeScript source the tests may load (declaration files hold no code). */
function typescriptSources() {
  const files = [];
  for (const folder of sourceFolders) {
    for (const entry of fs.readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path.join(entry.parentPath, entry.name));
    }
  }
  return files;
}

const removeOutput = () => fs.rmSync(outputFolder, { recursive: true, force: true });
removeOutput();
try {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: typescriptSources(),
    outdir: outputFolder,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
} catch (error) {
  removeOutput();
  throw error;
}

const compiledPath = (file) => path.join(outputFolder, path.relative(root, path.resolve(root, file)).replace(/\.ts$/, '.js'));

/*
 * The processes `node --test` starts: each runs up to 16 test files one after another (an entry
 * file that imports them), or one file alone. A process pays about 2 s of CPU before its tests run
 * at full speed: loading Fastify, the SDKs and our sources, a Markdown worker, and V8 warming the
 * code up (ten app test files took 27 s of CPU in ten processes and 7.8 s in one). A file's tests
 * run one at a time either way. A file runs alone when it looks at its whole process (which
 * packages it loaded, through tests/support/loaded-packages.ts or require's cache, or how its heap
 * grows), and so does the longest file, which starts first and mostly waits on the MCP servers it
 * starts.
 *
 * One more process than the machine has cores runs at a time (unless --test-concurrency is given):
 * the files spend about a third of their time waiting on sockets, timers and child processes.
 */
const longFiles = new Set(['tests/unit/providers/mcp/mcp-servers.test.ts']);
const watchesItsProcess = /watchLoadedPackages|require\(import\.meta\.url\)\.cache|require\.cache|process\.memoryUsage/i;
const runsAlone = (file) => longFiles.has(path.relative(root, path.resolve(root, file))) || watchesItsProcess.test(fs.readFileSync(path.resolve(root, file), 'utf8'));
const filesPerProcess = 16;
const entries = testFiles.filter(runsAlone).map(compiledPath);
const shared = testFiles.filter((file) => !runsAlone(file));
// Dealt out like cards, back and forth (the longest files come first), so each process gets one
// of the long files and the processes take about as long as each other.
const processCount = Math.ceil(shared.length / filesPerProcess);
const batches = Array.from({ length: processCount }, () => []);
shared.forEach((file, index) => {
  const column = index % processCount;
  batches[Math.floor(index / processCount) % 2 === 0 ? column : processCount - 1 - column].push(file);
});
for (const [index, batch] of batches.entries()) {
  if (batch.length === 1) {
    entries.push(compiledPath(batch[0]));
    continue;
  }
  const entry = path.join(outputFolder, 'together', `${String(index + 1).padStart(2, '0')}-${path.basename(batch[0], '.test.ts')}-and-${batch.length - 1}-more.js`);
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const lines = batch.map((file) => `await import(${JSON.stringify(pathToFileURL(compiledPath(file)).href)}); // ${path.relative(root, path.resolve(root, file))}`);
  fs.writeFileSync(entry, `// Test files run one after another in one process (tests/support/run-tests.mjs).\n${lines.join('\n')}\n`);
  entries.push(entry);
}
const concurrency = nodeFlags.some((flag) => flag.startsWith('--test-concurrency')) ? [] : [`--test-concurrency=${os.availableParallelism() + 1}`];
const child = spawn(process.execPath, ['--enable-source-maps', '--test', ...concurrency, ...nodeFlags, ...entries], { cwd: root, stdio: 'inherit' });
// Ctrl-C reaches the test runner through the terminal's process group; this process waits for it to end.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  removeOutput();
  try {
    fs.rmdirSync(path.dirname(outputFolder)); // only when no other run is using it
  } catch {
    // another run's output is still there
  }
  process.exitCode = code ?? (signal ? 1 : 0);
});
