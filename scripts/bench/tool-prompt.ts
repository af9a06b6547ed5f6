/**
 * The size of the system prompt's tool part with 0, 10 and 60 MCP tools beside the built-in ones,
 * against the 1,200-token budget (tokens estimated as characters / 3.5, the rule the server uses).
 *   npx tsx scripts/bench/tool-prompt.ts
 */
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { googleServicesFromConfig } from '../../src/providers/google/google-services.js';
import { FindToolsTool } from '../../src/engine/tools/find-tools-tool.js';
import { Tool, type ToolServices } from '../../src/engine/tools/tool.js';
import { defaultToolPromptBudgetTokens, loadTools } from '../../src/engine/tools/tool-registry.js';
import { toolsFolder } from '../../src/services.js';

const config = loadConfig({});
const services: ToolServices = { config, logger: pino({ level: 'silent' }), now: () => new Date(), google: googleServicesFromConfig(config) };
const tokens = (text: string) => Math.ceil(text.length / 3.5);

/** Shaped like a Home Assistant or filesystem server's tool: a dotted name, a long description. */
class ServerTool extends Tool {
  override readonly source = 'MCP: home';
  readonly examples: string[];
  constructor(
    readonly name: string,
    readonly description: string,
    override readonly actsOnWorld: boolean,
  ) {
    super(services);
    this.examples = [`[TOOL:${name}]{"entity_id": "…", "area": "…"}[/TOOL]`];
  }
  async run(): Promise<string> {
    return '';
  }
}

const verbs = ['turn_on', 'turn_off', 'get_state', 'list_entities', 'set_temperature', 'open_cover'];
const serverTools = (count: number) =>
  Array.from({ length: count }, (_, index) => {
    const verb = verbs[index % verbs.length]!;
    return new ServerTool(
      `home.${verb}_${index}`,
      `${verb.replace('_', ' ')} for a device or area of the house, by entity id, name or area. Use it when the person asks to change or read something at home; answers with the new state. Arguments: {"entity_id": string, "area": string}`,
      !verb.startsWith('get') && !verb.startsWith('list'),
    );
  });

const rows: string[] = [];
for (const count of [0, 10, 60]) {
  const registry = await loadTools(toolsFolder, services);
  registry.add(new FindToolsTool(services, registry));
  registry.replaceGroup('home', serverTools(count));
  const text = registry.describe();
  const described = (text.match(/^- /gm) ?? []).length;
  rows.push(`| ${count} | ${registry.all.length} | ${tokens(text)} | ${described} | ${text.length} |`);
}
console.log(`Tool part of the system prompt (budget ${defaultToolPromptBudgetTokens} tokens):\n`);
console.log('| MCP tools | tools in all | tokens | described | characters |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
