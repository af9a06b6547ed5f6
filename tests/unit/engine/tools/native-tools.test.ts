import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FindToolsTool } from '../../../../src/engine/tools/find-tools-tool.js';
import { chooseNativeTools, namesInFinderResult, nativeSpecOf } from '../../../../src/engine/tools/native-tools.js';
import { argumentsProblem } from '../../../../src/engine/tools/tool-arguments.js';
import { Tool } from '../../../../src/engine/tools/tool.js';
import { ToolRegistry } from '../../../../src/engine/tools/tool-registry.js';
import { createTestRegistry, testToolServices } from '../../../support/test-tools.js';

const services = testToolServices();

class DeviceTool extends Tool {
  readonly description = 'Controls one device in the house: switch it on or off, dim it, or read its state.';
  readonly examples = [];
  override readonly source = 'MCP: home';
  constructor(readonly name: string) {
    super(services);
  }
  async run(): Promise<string> {
    return 'ok';
  }
}

function registryWith(count: number) {
  const { registry } = createTestRegistry(services);
  registry.add(new FindToolsTool(services, registry));
  registry.replaceGroup('home', Array.from({ length: count }, (_, index) => new DeviceTool(`home.device_${index}`)));
  return registry;
}

test('a native spec is the tool\'s name, description (saying it asks first) and JSON Schema', () => {
  const { registry, sendNote } = createTestRegistry(services);
  assert.deepEqual(nativeSpecOf(registry.find('calculator')!).parameters.required, ['expression']);
  assert.match(nativeSpecOf(sendNote).description, /Asks the person for approval before it acts\.$/);
});

test('within the budget: find_tools first, then built-in tools; the rest are named for find_tools', () => {
  const choice = chooseNativeTools(registryWith(200), { budgetTokens: 800 });
  assert.equal(choice.specs[0]!.name, 'find_tools');
  assert.ok(choice.specs.some((spec) => spec.name === 'calculator'));
  assert.ok(!choice.specs.some((spec) => spec.name.startsWith('home.')), 'the budget went to the built-in tools');
  assert.match(choice.promptText, /^More tools, not sent with this request \(find_tools tells what they take; then call them by name\): send_note, home\.device_0, .*, and \d+ more\.$/);
  assert.ok(choice.promptText.length < 200 * 3.5 + 200, 'the names stay short');
});

test('tools the chat called or find_tools described are sent whatever the budget', () => {
  const registry = registryWith(200);
  const found = namesInFinderResult('- home.device_150: Controls one device.\n  [TOOL:home.device_150]{}[/TOOL]\n- home.device_7: Controls.');
  assert.deepEqual(found, ['home.device_150', 'home.device_7']);
  const choice = chooseNativeTools(registry, { budgetTokens: 800, wanted: new Set(found) });
  assert.ok(choice.specs.some((spec) => spec.name === 'home.device_150'));
  assert.ok(choice.specs.some((spec) => spec.name === 'home.device_7'));
});

test('everything that fits is sent, with nothing said about more', () => {
  const choice = chooseNativeTools(new ToolRegistry([new DeviceTool('home.lamp')]));
  assert.deepEqual(choice.specs.map((spec) => spec.name), ['home.lamp']);
  assert.equal(choice.promptText, '');
});

test('arguments are checked against the schema: JSON always, free text only for a native call', () => {
  const calculator = createTestRegistry(services).registry.find('calculator')!;
  assert.equal(argumentsProblem(calculator, '{"expression": "1+1"}', true), undefined);
  assert.equal(argumentsProblem(calculator, '2 * 3', false), undefined, 'a [TOOL:] call in free text is the tool\'s to read');
  assert.match(argumentsProblem(calculator, '2 * 3', true)!, /^Not run: the arguments must be a JSON object; calculator takes \{"expression": string \(required\)\}\.$/);
  assert.match(argumentsProblem(calculator, '{"expression": 12}', false) ?? 'none', /^none$/, 'a number where text is wanted is coerced, as the model meant');
  assert.match(argumentsProblem(calculator, '{}', false)!, /must have required property 'expression'/);
  assert.match(argumentsProblem(calculator, '{"expression": "1", "x": 2}', true)!, /there is no argument "x"/);
  assert.match(argumentsProblem(calculator, '{oops', true)!, /^Not run: the arguments are not valid JSON;/);
});
