// `npm start` runs `exec node scripts/start.js`. It builds dist/ only when the TypeScript sources
// are newer than the last build (a fresh clone, or a `git pull` without `npm install`), then runs
// the server in this same process. No second process, and `exec` replaces the shell npm runs
// scripts in (Debian's dash does not, and dies on SIGTERM without passing it on), so the SIGTERM
// that systemd, Docker or npm send reaches the server itself.
// Plain JavaScript on purpose, so it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleServer } from './bundle-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distFolder = path.join(root, 'dist');
const stampFile = path.join(distFolder, '.build-stamp');
const sourceFolders = ['src', 'tools'];
const sourceFiles = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/bundle-server.js'];

/** Every TypeScript source the build compiles, plus the files that change how it compiles. */
function buildInputs() {
  const files = sourceFiles.map((name) => path.join(root, name)).filter((file) => fs.existsSync(file));
  for (const folder of sourceFolders) {
    const start = path.join(root, folder);
    if (!fs.existsSync(start)) continue;
    for (const entry of fs.readdirSync(start, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) files.push(path.join(entry.parentPath, entry.name));
    }
  }
  return files.sort();
}

const listOf = (inputs) => JSON.stringify(inputs.map((file) => path.relative(root, file)));

/** Why a build is needed ({ reason, clean }), or undefined when dist/ is up to date. */
function staleness(inputs) {
  const stamp = fs.statSync(stampFile, { throwIfNoEntry: false });
  if (!stamp || !fs.existsSync(path.join(distFolder, 'src', 'server.js'))) return { reason: 'no build yet', clean: false };
  if (bundlerInstalled() && !fs.existsSync(bundleFile)) return { reason: 'the server is not bundled yet', clean: false };
  // A deleted or renamed source leaves its old .js behind (tools/ are loaded by folder), so a
  // different list of sources means a clean build.
  if (fs.readFileSync(stampFile, 'utf8') !== listOf(inputs)) return { reason: 'source files were added or removed', clean: true };
  const newer = inputs.find((file) => fs.statSync(file).mtimeMs > stamp.mtimeMs);
  return newer ? { reason: `${path.relative(root, newer)} changed`, clean: false } : undefined;
}

const bundleFile = path.join(distFolder, 'src', 'server.bundle.js');
const bundlerInstalled = () => fs.existsSync(path.join(root, 'node_modules', 'esbuild', 'package.json'));

async function build(inputs, { reason, clean }) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc)) {
    // `npm install --omit=dev` runs prepare too: it cannot build, and says so instead of failing the install.
    if (mode !== 'start') {
      console.log('Hearth: TypeScript is not installed (npm install --omit=dev?), so nothing was built.');
      process.exit(0);
    }
    console.error('Hearth cannot start: it needs building but TypeScript is not installed. Run: npm install');
    process.exit(1);
  }
  console.log(`Building Hearth (${reason})...`);
  if (clean) fs.rmSync(distFolder, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('Hearth cannot start: the TypeScript build failed (see above).');
    process.exit(1);
  }
  // One file instead of some 500 modules: start-up's module loading costs a third of the CPU.
  // Without esbuild (a dev dependency) the compiled files run as they are.
  fs.rmSync(bundleFile, { force: true });
  if (bundlerInstalled()) {
    try {
      await bundleServer(distFolder);
    } catch (error) {
      console.error(`Hearth cannot start: bundling the server failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  }
  fs.writeFileSync(stampFile, listOf(inputs));
}

// start: build if stale, then serve. --if-stale (npm's prepare): build if stale. --build: always build.
const mode = process.argv.includes('--build') ? 'build' : process.argv.includes('--if-stale') ? 'if-stale' : 'start';
const inputs = buildInputs();
const stale = mode === 'build' ? { reason: 'npm run build', clean: false } : staleness(inputs);
if (stale) await build(inputs, stale);
if (mode === 'start') await import(pathToFileURL(fs.existsSync(bundleFile) ? bundleFile : path.join(distFolder, 'src', 'server.js')).href);
