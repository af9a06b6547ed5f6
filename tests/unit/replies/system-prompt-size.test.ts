/*
 * What the tools cost in the prompt, per mode: inline, the system prompt teaches [TOOL:] and
 * lists the tools; native, the prompt has rules only and the tools travel as JSON Schemas (which
 * the server's chat template writes into the prompt, so they are counted too). Tokens are the
 * history's estimate (3.5 characters a token). The numbers are printed for the note.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FindToolsTool } from '../../../src/engine/tools/find-tools-tool.js';
import { chooseNativeTools, defaultNativeToolBudgetTokens } from '../../../src/engine/tools/native-tools.js';
import { Tool, type ToolParameters } from '../../../src/engine/tools/tool.js';
import { describeTool, loadTools, type ToolRegistry } from '../../../src/engine/tools/tool-registry.js';
import { toOllamaTools } from '../../../src/engine/llm/ollama-chat-model.js';
import { createSystemPromptBuilder } from '../../../src/replies/system-prompt.js';
import { testToolServices } from '../../support/test-tools.js';

const toolsFolder = fileURLToPath(new URL('../../../tools/', import.meta.url));
const services = testToolServices(() => new Date('2026-11-27T12:00:00Z'));
const tokens = (text: string) => Math.ceil(text.length / 3.5);

/** A tool shaped like an MCP server's: a dotted name, a real-length description, a two-argument schema. */
class ServerTool extends Tool {
  readonly examples: string[];
  override readonly source = 'MCP: home';
  override readonly describedOutside = true;
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      entity_id: { type: 'string', description: 'The device, such as light.kitchen.' },
      brightness: { type: 'integer', minimum: 0, maximum: 100, description: 'Brightness in percent.' },
    },
    required: ['entity_id'],
  };
  constructor(readonly name: string) {
    super(services);
    this.examples = [`[TOOL:${name}]{"entity_id": "light.kitchen", "brightness": 80}[/TOOL]`];
  }
  readonly description = 'Controls one device in the house: switch it on or off, dim it, or read its state and its last change.';
  async run(): Promise<string> {
    return 'ok';
  }
}

async function registryWith(mcpTools: number): Promise<ToolRegistry> {
  const registry = await loadTools(toolsFolder, services);
  registry.add(new FindToolsTool(services, registry));
  registry.replaceGroup('home', Array.from({ length: mcpTools }, (_, index) => new ServerTool(`home.device_${index}`)));
  return registry;
}

async function promptSizes(registry: ToolRegistry) {
  const builder = createSystemPromptBuilder({
    templateFile: path.join(path.dirname(fileURLToPath(import.meta.url)), 'no-such-template.md'),
    describeTools: () => ({ text: registry.describe(), outsideText: registry.describesOutsideText }),
    memoryMaxBytes: 2048,
    maxToolRounds: 10,
    now: () => new Date('2026-11-27T12:00:00Z'),
  });
  const inline = (await builder.build('')).content;
  const choice = chooseNativeTools(registry);
  const nativePrompt = (await builder.build('', { text: choice.promptText })).content;
  const schemas = JSON.stringify(toOllamaTools(choice.specs));
  return { inline, nativePrompt, schemas, sent: choice.specs.length, promptText: choice.promptText };
}

test('the built-in tools all offered (as with a Google account connected): what each mode sends for them', async (t) => {
  const registry = await registryWith(0);
  const inlineList = registry.all.map((tool) => describeTool(tool)).join('\n');
  const choice = chooseNativeTools({ offered: registry.all });
  const specs = choice.specs;
  const schemas = JSON.stringify(toOllamaTools(specs));
  t.diagnostic(`${registry.all.length} built-in tools: inline list ${inlineList.length} chars ≈ ${tokens(inlineList)} tokens; native schemas (${specs.length} sent) ${schemas.length} chars ≈ ${tokens(schemas)} tokens`);
  // With Google's and the web's tools there are more than the budget holds: those sent fit it, and
  // every other one is named for find_tools, so none is out of reach.
  assert.ok(tokens(schemas) <= defaultNativeToolBudgetTokens, `schemas ${tokens(schemas)} tokens`);
  const sent = new Set(specs.map((spec) => spec.name));
  for (const tool of registry.all) {
    assert.ok(sent.has(tool.name) || choice.promptText.includes(tool.name), `${tool.name} is sent or named`);
  }
});

test('prompt size per mode, for the built-in tools and with 60 MCP tools: bounded in both', async (t) => {
  for (const mcpTools of [0, 60, 120]) {
    const sizes = await promptSizes(await registryWith(mcpTools));
    const native = tokens(sizes.nativePrompt) + tokens(sizes.schemas);
    t.diagnostic(
      `${mcpTools} MCP tools: inline system prompt ${sizes.inline.length} chars ≈ ${tokens(sizes.inline)} tokens; ` +
        `native system prompt ${sizes.nativePrompt.length} chars ≈ ${tokens(sizes.nativePrompt)} tokens + ${sizes.sent} tool schemas ${sizes.schemas.length} chars ≈ ${tokens(sizes.schemas)} tokens = ${native} tokens`,
    );
    assert.doesNotMatch(sizes.nativePrompt, /\[TOOL:/, 'the native prompt teaches no syntax');
    assert.match(sizes.inline, /\[TOOL:tool_name\]params\[\/TOOL\]/);
    // find_tools and the tool list both stay within their budgets, however many tools there are.
    assert.ok(tokens(sizes.schemas) <= defaultNativeToolBudgetTokens, `schemas ${tokens(sizes.schemas)} tokens`);
    assert.ok(tokens(sizes.inline) < 2200, `inline ${tokens(sizes.inline)} tokens`);
    assert.ok(tokens(sizes.nativePrompt) < 700, `native prompt ${tokens(sizes.nativePrompt)} tokens`);
    if (mcpTools > 0) assert.match(sizes.promptText, /^More tools, not sent with this request \(find_tools tells what they take; then call them by name\): home\.device_\d+, /);
    else assert.equal(sizes.promptText, '', 'every built-in tool is sent');
  }
});
