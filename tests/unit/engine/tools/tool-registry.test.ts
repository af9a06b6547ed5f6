import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FindToolsTool } from '../../../../src/engine/tools/find-tools-tool.js';
import { Tool } from '../../../../src/engine/tools/tool.js';
import { ToolRegistry, defaultToolPromptBudgetTokens, loadTools } from '../../../../src/engine/tools/tool-registry.js';
import { createTestRegistry, testToolServices } from '../../../support/test-tools.js';

/** The tools/ folder the server loads. */
// Beside this file's src/ (as services.ts finds it), so compiled tests load the compiled tools.
const toolsFolder = fileURLToPath(new URL('../../../../tools/', import.meta.url));

const services = testToolServices();
const tokens = (text: string) => Math.ceil(text.length / 3.5);

/** A tool shaped like an MCP server's: a dotted name, a real-length description, a JSON example. */
class ServerTool extends Tool {
  readonly examples: string[];
  override readonly source = 'MCP: home';
  constructor(
    readonly name: string,
    readonly description: string,
  ) {
    super(services);
    this.examples = [`[TOOL:${name}]{"entity_id": "light.kitchen", "brightness": 80}[/TOOL]`];
  }
  async run(): Promise<string> {
    return 'ok';
  }
}

const serverTools = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    new ServerTool(`home.device_${index}`, `Controls device number ${index} in the house: switch it on or off, dim it, or read its state and its last change.`),
  );

function registryWith(count: number) {
  const registry = new ToolRegistry([]);
  registry.add(new FindToolsTool(services, registry));
  registry.replaceGroup('home', serverTools(count));
  return registry;
}

test('the tool part of the prompt stays within its budget with 0, 10 and 60 tools', () => {
  const sizes = [0, 10, 60].map((count) => tokens(registryWith(count).describe()));
  for (const size of sizes) assert.ok(size <= defaultToolPromptBudgetTokens, `${size} tokens`);
  const sixty = registryWith(60).describe();
  assert.match(sixty, /find_tools/, 'the finder is described when tools are left out');
  assert.match(sixty, /and \d+ more\.$|home\.device_59/, 'the rest are named or counted');
  assert.ok(sizes[2]! > sizes[1]!, 'more tools use more of the budget');
});

test('when everything fits every tool is described in full, without the finder', () => {
  const description = registryWith(3).describe();
  for (let index = 0; index < 3; index++) assert.match(description, new RegExp(`- home\\.device_${index}: Controls device number ${index}`));
  assert.doesNotMatch(description, /find_tools/);
});

test('the most used tools are described first when not all fit', () => {
  const registry = registryWith(60);
  const description = registry.describe({ usage: new Map([['home.device_42', 9]]) });
  assert.match(description, /- home\.device_42: Controls device number 42/);
  assert.ok(description.indexOf('home.device_42') < description.indexOf('home.device_0'));
});

test('find_tools finds a tool left out of the prompt by what it does, and says how to call it', async () => {
  const registry = registryWith(60);
  registry.replaceGroup('files', [new ServerTool('files.read_text_file', 'Read the complete contents of a text file from the allowed folders.')]);
  const finder = registry.find('find_tools')!;
  const found = await finder.run('read a file', { signal: new AbortController().signal, conversationId: 1, turn: { memoryRevision: '', vision: false }, reportProgress: () => {} });
  const text = (output: Awaited<ReturnType<typeof finder.run>>) => (typeof output === 'string' ? output : output.text);
  assert.match(text(found), /^- files\.read_text_file: Read the complete contents/);
  assert.match(text(found), /\[TOOL:files\.read_text_file\]/);
  const nothing = await finder.run('zebra', { signal: new AbortController().signal, conversationId: 1, turn: { memoryRevision: '', vision: false }, reportProgress: () => {} });
  assert.match(text(nothing), /No tool matches "zebra"/);
});

test('a group of tools can be replaced or removed, and a clashing name is refused, not swapped in', () => {
  const { registry } = createTestRegistry(services);
  assert.deepEqual(registry.replaceGroup('files', [new ServerTool('files.read', 'Reads.'), new ServerTool('calculator', 'An impostor.')]), ['calculator']);
  assert.equal(registry.find('files.read')?.name, 'files.read');
  assert.notEqual(registry.find('calculator')?.description, 'An impostor.');
  registry.replaceGroup('files', []);
  assert.equal(registry.find('files.read'), undefined);
});

/** What a tool was given, read from outside for the test (it is protected). */
const givenTo = (tool: Tool) => Object.keys((tool as unknown as { services: object }).services).sort();

test('a tool is given only the services it names: the calculator gets no Gmail, the Gmail tools do', async () => {
  const registry = await loadTools(toolsFolder, services);
  const given = Object.fromEntries(registry.all.map((tool) => [tool.name, givenTo(tool)]));
  const common = ['config', 'logger', 'now'];
  assert.deepEqual(given.calculator, common);
  assert.deepEqual(given.current_time, common);
  for (const name of ['search_emails', 'read_email', 'create_draft', 'list_email_accounts', 'list_events', 'find_free_time']) {
    assert.deepEqual(given[name], [...common, 'google'].sort(), name);
  }
  // However it is built: a class handed everything keeps what it named.
  assert.deepEqual(givenTo(new FindToolsTool(services, registry)), common);
});

test('a tool that names a service nobody provided says so when it is built', () => {
  class NeedsGoogle extends Tool.using('google') {
    readonly name = 'needs_google';
    readonly description = 'Needs Google.';
    readonly examples = [];
    async run(): Promise<string> {
      return this.services.google.timeZone;
    }
  }
  const { google: _google, ...withoutGoogle } = services;
  assert.throws(() => new NeedsGoogle(withoutGoogle as typeof services), /NeedsGoogle needs the "google" tool service, which nothing provided/);
  assert.deepEqual(givenTo(new NeedsGoogle(services)), ['config', 'google', 'logger', 'now']);
});

test('a tool called with a tag of its own is found by that tag and by name for its cards, never offered by name', () => {
  class TaggedTool extends Tool {
    readonly name = 'tagged_tool';
    readonly description = 'Called with its own tag.';
    readonly examples = [];
    override readonly calledWith = 'memory';
    async run(): Promise<string> {
      return 'ok';
    }
  }
  const { registry } = createTestRegistry(services);
  const tagged = new TaggedTool(services);
  registry.add(tagged);
  assert.equal(registry.forTag('memory'), tagged);
  assert.equal(registry.named('Tagged Tool'), tagged, 'a card finds its words');
  assert.equal(registry.find('tagged_tool'), undefined, '[TOOL:tagged_tool] is no call');
  assert.ok(!registry.names.includes('tagged_tool'));
  assert.doesNotMatch(registry.describe(), /tagged_tool/, 'not listed to the model');
});
