// The build's last step (scripts/start.js): dist/src/server.js and what it imports at start, put
// into one file, dist/src/server.bundle.js, which `npm start` runs. Node then reads, resolves and
// links one module instead of some 500 (Hearth's own and the packages'), which was a third of
// start-up's CPU and about 8 MB of its memory.
//
// Every module is in the bundle or stays a file, never both, so each class (Tool, ToolError...)
// exists once. These stay files, with everything they import:
// - what tools/ imports (the tools are loaded from their folder at start, by path);
// - what is imported with import() (a feature's first use, e.g. TLS=auto, an OpenAI server,
//   Google, MCP): its packages stay unloaded until then, as without the bundle;
// - a module that finds a file beside itself from import.meta.url (the Markdown worker's).
// Packages with native code or worker files found beside themselves are never bundled.
// Plain JavaScript, like start.js: it runs before anything is compiled.
import fs from 'node:fs';
import path from 'node:path';

/** Packages loaded from node_modules as they are: native add-ons, and pino's worker-thread logging. */
const unbundledPackages = new Set(['better-sqlite3', 'bcrypt', 'bindings', 'node-gyp-build', 'pino', 'pino-pretty', 'thread-stream']);

/**
 * Packages Fastify requires only when first needed (schemas are compiled on a route's first
 * request, light-my-request only for inject()): bundled, their code would be held from the start.
 */
const firstUsePackages = new Set([
  'ajv',
  'ajv-formats',
  '@fastify/ajv-compiler',
  'fast-json-stringify',
  '@fastify/fast-json-stringify-compiler',
  '@fastify/merge-json-schemas',
  'json-schema-ref-resolver',
  'fast-uri',
  'light-my-request',
]);

const packageName = (specifier) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
const isBare = (specifier) => !specifier.startsWith('.') && !path.isAbsolute(specifier) && !specifier.startsWith('node:');

function jsFiles(folder) {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** import.meta used for more than createRequire (which finds the same packages from any folder of dist/src). */
function findsFilesBesideItself(file) {
  const text = fs.readFileSync(file, 'utf8');
  return text.replaceAll('createRequire(import.meta.url)', '').includes('import.meta');
}

/** The compiled modules under dist/src that `entryPoints` reach, following import() too. */
async function modulesReachedFrom(esbuild, entryPoints, sourceFolder) {
  if (entryPoints.length === 0) return new Set();
  const result = await esbuild.build({
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    outdir: path.join(sourceFolder, '.reach'),
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
    absWorkingDir: sourceFolder,
  });
  return new Set(Object.keys(result.metafile.inputs).map((input) => path.resolve(sourceFolder, input)));
}

export async function bundleServer(distFolder) {
  const esbuild = await import('esbuild');
  const sourceFolder = path.join(distFolder, 'src');
  const entry = path.join(sourceFolder, 'server.js');
  const own = (file) => file.startsWith(sourceFolder + path.sep);

  // The modules imported with import() anywhere in dist/src: where a lazy feature starts.
  const everything = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    outfile: path.join(sourceFolder, '.reach.js'),
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
    absWorkingDir: sourceFolder,
  });
  const lazy = [];
  for (const [input, { imports }] of Object.entries(everything.metafile.inputs)) {
    const importer = path.resolve(sourceFolder, input);
    for (const imported of imports) {
      if (imported.kind === 'dynamic-import' && !imported.external) lazy.push(path.resolve(sourceFolder, imported.path));
    }
    if (importer !== entry && path.dirname(importer) !== sourceFolder && findsFilesBesideItself(importer)) lazy.push(importer);
  }
  const files = await modulesReachedFrom(esbuild, [...jsFiles(path.join(distFolder, 'tools')), ...lazy], sourceFolder);

  const keepOut = {
    name: 'keep-out',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (isBare(args.path)) {
          const name = packageName(args.path);
          // import() of a package: loaded on first use, as the source says.
          if (unbundledPackages.has(name) || firstUsePackages.has(name) || (args.kind === 'dynamic-import' && own(args.importer))) return { path: args.path, external: true };
          return undefined;
        }
        if (!own(args.importer) || args.path.startsWith('node:')) return undefined;
        const target = path.resolve(path.dirname(args.importer), args.path);
        if (!files.has(target)) return undefined;
        return { path: `./${path.relative(sourceFolder, target).split(path.sep).join('/')}`, external: true };
      });
    },
  };

  const outfile = path.join(sourceFolder, 'server.bundle.js');
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [keepOut],
    logLevel: 'warning',
    absWorkingDir: sourceFolder,
    // The bundled CommonJS packages require Node's own modules.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);" },
  });
  fs.writeFileSync(outfile, asciiOnly(fs.readFileSync(outfile, 'utf8')));
}

/**
 * The text with every non-ASCII UTF-16 unit written as \uXXXX. One such character (esbuild leaves
 * them in comments and regular expression literals) makes V8 hold the whole 2 MB source as
 * two-byte text, 2 MB more. The escape means the same character in a string, a template, an
 * identifier and a regular expression; an identity escape before it (`\•`) becomes the escape.
 */
function asciiOnly(text) {
  return text.replace(/(\\*)([^\0-\x7f])/g, (_match, backslashes, character) => {
    const escaped = `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
    return (backslashes.length % 2 === 1 ? backslashes.slice(1) : backslashes) + escaped;
  });
}
