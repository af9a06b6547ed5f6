/*
 * The layers of docs/architecture.md, enforced: a file imports only from its own folder, from a
 * lower layer, or from a sibling folder of its layer declared below. Type imports count; no
 * cycles at all; nothing is re-exported from another file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { projectRoot } from '../src/config/project-root.js';
import { checkLayers, findCycles, readCodeGraph, readSourceFacts, type LayerRules } from './support/import-graph.js';

const root = projectRoot;

const layerRules: LayerRules = {
  layers: [
    { rank: 0, name: 'base', folders: ['src/config', 'src/threads'] },
    { rank: 1, name: 'storage', folders: ['src/storage', 'src/storage/backup'] },
    { rank: 2, name: 'engine', folders: ['src/engine/llm', 'src/engine/markdown', 'src/engine/tools'] },
    { rank: 3, name: 'providers', folders: ['src/providers/google', 'src/providers/mcp', 'src/providers/memory', 'src/providers/photos', 'src/providers/web', 'tools'] },
    { rank: 4, name: 'replies', folders: ['src/replies'] },
    {
      rank: 5,
      name: 'web',
      folders: ['src/web/http', 'src/web/auth', 'src/web/tls', 'src/web/chat', 'src/web/tools-page', 'src/web/memory-page', 'src/web/settings-page', 'src/web/photos'],
    },
    { rank: 6, name: 'shell', folders: ['src', 'scripts', 'scripts/bench', 'tests/support'] },
  ],
  siblingLinks: [
    // A backup copies the database and reads the stores' own format (draft pieces).
    ['src/storage/backup', 'src/storage'],
    // The Gmail and Calendar tools are Google's.
    ['tools', 'src/providers/google'],
    ['tools', 'src/providers/web'],
    // Every page and socket may use the shared plugins and helpers, and the login check.
    ...['src/web/auth', 'src/web/tls', 'src/web/chat', 'src/web/tools-page', 'src/web/memory-page', 'src/web/settings-page', 'src/web/photos'].map((folder): [string, string] => [folder, 'src/web/http']),
    ...['src/web/chat'].map((folder): [string, string] => [folder, 'src/web/auth']),
    // The shell: the server starts the app; scripts and the benchmarks use the test harness.
    ['scripts', 'src'],
    ['scripts', 'tests/support'],
    ['scripts/bench', 'src'],
    ['scripts/bench', 'tests/support'],
    ['tests/support', 'src'],
  ],
};

test('the code keeps to its layers: no upward or undeclared sibling import, no cycle, no re-export', () => {
  const graph = readCodeGraph(root, ['src', 'tools', 'scripts', 'tests/support']);
  assert.ok(graph.files.length > 100, `read ${graph.files.length} files`);
  assert.ok(graph.edges.length > 300, `found ${graph.edges.length} imports`);
  assert.deepEqual(
    graph.unresolved.filter((edge) => !edge.specifier.endsWith('/')).map((edge) => `${edge.from}: ${edge.specifier}`),
    [],
    'every relative import names a file',
  );
  const problems = checkLayers(graph, layerRules);
  assert.deepEqual(problems, [], `\n${problems.join('\n')}\n`);
});

test('the checker sees every kind of import, and finds a cycle, an upward import, an undeclared sibling and a re-export', () => {
  const facts = readSourceFacts(
    'src/a/one.ts',
    [
      "import { x } from './two.js';",
      "import type { T } from '../b/three.js';",
      "export { y } from './four.js';",
      "export { x };",
      "const later = await import('./five.js');",
      "let t: import('./six.js').Six;",
      "declare module './seven.js' { interface Seven { extra: true } }",
      "const worker = new URL(process.env.X ? './eight.ts' : './eight.js', import.meta.url);",
      "import fs from 'node:fs';",
    ].join('\n'),
  );
  assert.deepEqual(facts.specifiers, ['./two.js', '../b/three.js', './four.js', './five.js', './six.js', './seven.js', './eight.ts', './eight.js']);
  assert.deepEqual(facts.forwards, ["export { y } from './four.js';", 'export { x };']);

  const rules: LayerRules = {
    layers: [
      { rank: 0, name: 'low', folders: ['src/low', 'src/low2'] },
      { rank: 1, name: 'high', folders: ['src/high'] },
    ],
    siblingLinks: [],
  };
  const files = ['src/low/a.ts', 'src/low/b.ts', 'src/high/c.ts', 'src/low2/d.ts', 'src/nowhere/e.ts'];
  const edges = [
    { from: 'src/low/a.ts', to: 'src/low/b.ts', specifier: './b.js' },
    { from: 'src/low/b.ts', to: 'src/low/a.ts', specifier: './a.js' },
    { from: 'src/low/b.ts', to: 'src/high/c.ts', specifier: '../high/c.js' },
    { from: 'src/high/c.ts', to: 'src/low/a.ts', specifier: '../low/a.js' },
    { from: 'src/low2/d.ts', to: 'src/low/a.ts', specifier: '../low/a.js' },
  ];
  assert.deepEqual(findCycles(files, edges), [['src/high/c.ts', 'src/low/a.ts', 'src/low/b.ts']]);
  const problems = checkLayers({ files, edges, forwards: new Map([['src/high/c.ts', ["export { a } from '../low/a.js';"]]]) }, rules);
  assert.deepEqual(problems, [
    'folder without a layer: src/nowhere (add it to the layer table)',
    'upward import: src/low/b.ts (0 low) imports src/high/c.ts (1 high)',
    'undeclared sibling import: src/low2/d.ts (0 low) imports src/low/a.ts (0 low) (declare src/low2 -> src/low, or move the code)',
    'import cycle: src/high/c.ts <-> src/low/a.ts <-> src/low/b.ts',
    "re-export: src/high/c.ts forwards `export { a } from '../low/a.js';` (import it from where it is defined)",
  ]);
  assert.deepEqual(checkLayers({ files: files.slice(0, 2), edges: edges.slice(0, 1), forwards: new Map() }, rules), [], 'a clean graph passes');
});

/** What changes a conversation, its messages or its tool calls, by the name each store is passed under. */
const writes: Record<string, string[]> = {
  store: ['createConversation', 'setConversationModel', 'renameConversation', 'setAutomaticTitle', 'softDeleteConversation', 'restoreConversation', 'purgeDeletedConversations', 'markOutsideText', 'addMessage', 'updateMessage', 'appendDraft', 'closeInterruptedReplies', 'branchFrom', 'showVersion'],
  toolCalls: ['add', 'finish', 'setStatus', 'setProgress', 'closeInterrupted'],
  approvals: ['decide'],
};

test('pages and the socket change chats only through the chat service: no file in src/web writes a conversation, a message or an approval', () => {
  const calls: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, 'src', 'web'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    for (const [receiver, methods] of Object.entries(writes)) {
      for (const match of text.matchAll(new RegExp(`\\b${receiver}\\.(${methods.join('|')})\\(`, 'g'))) calls.push(`${path.relative(root, file)}: ${match[0]}`);
    }
  }
  assert.deepEqual(calls, [], 'these belong in src/replies/chat-service.ts');
});

/** Provider words an engine name must not contain: the engine serves every provider alike. */
const providerWords = /google|gmail|calendar|mcp|memory_?update/i;
/** The tag format the scanner reads is the one place the engine may spell the memory tool's tag. */
const tagFormatFile = 'src/engine/tools/tool-call-formats.ts';

/**
 * Every identifier in `text` that names a provider, and every string that names the memory
 * tool (comments and regular expressions are not names). One line per finding.
 */
function providerNamesIn(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    const where = () => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && providerWords.test(node.text)) found.push(`${where()}: ${node.text}`);
    if ((ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && /memory_?update/i.test(node.text) && file !== tagFormatFile) found.push(`${where()}: '${node.text}'`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the engine names no provider: no name in src/engine says google, gmail, calendar, mcp or memory_update', () => {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, 'src', 'engine'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    found.push(...providerNamesIn(path.relative(root, file), fs.readFileSync(file, 'utf8')));
  }
  assert.deepEqual(found, [], 'a provider adds itself (ToolServices, TurnState, a Tool hook); the engine does not name it');

  // The check sees names, not comments or patterns.
  const snippet = [
    '// Gmail and MCP in a comment are fine',
    'const pattern = /memory_update/;',
    'const memoryUpdateTool = services.google;',
    "if (call.name !== 'memory_update') run();",
    'class X { #mcpServers = 1; }',
  ].join('\n');
  assert.deepEqual(providerNamesIn('src/engine/tools/x.ts', snippet), [
    'src/engine/tools/x.ts:3: memoryUpdateTool',
    'src/engine/tools/x.ts:3: google',
    "src/engine/tools/x.ts:4: 'memory_update'",
    'src/engine/tools/x.ts:5: #mcpServers',
  ]);
});
