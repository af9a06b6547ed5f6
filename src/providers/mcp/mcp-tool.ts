/*
 * One MCP tool as a Hearth tool: the engine finds it by `<server>.<tool>`, asks before it acts
 * unless the server marks it read-only or mcp.json allows it, and gets back defused text.
 */
import { Tool, ToolError, type ToolOutput, type ToolParameters, type ToolRunContext, type ToolServices } from '../../engine/tools/tool.js';
import { McpArgumentReader, describeArguments, type InputSchema } from './mcp-arguments.js';
import { describeCallToolResult, defuseServerText, type McpToolOutput } from './mcp-results.js';
import { McpCallError, type McpProgress, type McpServerManager, type McpToolInfo } from './mcp-servers.js';

/** A progress notification as the tool card shows it: "Reading files (3 of 10)". */
export function describeProgress(update: McpProgress): string {
  const amount = update.total !== undefined ? `${update.progress} of ${update.total}` : String(update.progress);
  const message = update.message ? defuseServerText(update.message).slice(0, 160) : '';
  return message ? `${message} (${amount})` : `Progress: ${amount}`;
}

export interface McpToolDependencies {
  servers: Pick<McpServerManager, 'callTool'>;
  argumentReader: McpArgumentReader;
}

/** Characters of a result the model sees (the engine cuts at the same number). */
export const mcpResultCharacters = 8000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function exampleValue(property: unknown): unknown {
  if (!isObject(property)) return '…';
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '…';
  }
}

/** `[TOOL:files.read_text_file]{"path": "…"}[/TOOL]`, with the required arguments filled in. */
export function exampleCall(name: string, schema: InputSchema): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((item): item is string => typeof item === 'string') : [];
  if (required.length === 0) return `[TOOL:${name}]{}[/TOOL]`;
  const example = Object.fromEntries(required.slice(0, 8).map((key) => [key, exampleValue(properties[key])]));
  // The name is already made of safe characters; argument names come from the server and are defused.
  return `[TOOL:${name}]${defuseServerText(JSON.stringify(example).replace(/":/g, '": ').replace(/,"/g, ', "'))}[/TOOL]`;
}

export class McpTool extends Tool {
  readonly name: string;
  readonly description: string;
  readonly examples: string[];
  override readonly timeoutMs: number;
  override readonly actsOnWorld: boolean;
  override readonly maxResultCharacters = mcpResultCharacters;
  override readonly source: string;
  override readonly describedOutside = true;
  /** The server's own inputSchema: what its arguments are is the server's to say. */
  override readonly parameters: ToolParameters;

  constructor(
    services: ToolServices,
    readonly info: McpToolInfo,
    private readonly dependencies: McpToolDependencies,
  ) {
    super(services);
    this.name = info.name;
    this.source = `MCP: ${info.server}`;
    const about = info.description || `Tool "${info.toolName}" of the ${info.server} MCP server.`;
    // Argument names come from the server too: defused like its description.
    this.description = defuseServerText(`${about} Arguments: ${describeArguments(info.inputSchema)}`);
    this.examples = [exampleCall(info.name, info.inputSchema)];
    // The server's JSON Schema as it sent it (ajv checks arguments against it); always an object.
    this.parameters = { ...info.inputSchema, type: 'object', properties: isObject(info.inputSchema.properties) ? info.inputSchema.properties : {} } as ToolParameters;
    this.timeoutMs = info.timeoutMs;
    this.actsOnWorld = !(info.readOnly || info.allowedByConfig);
  }

  /**
   * Only what Hearth can say itself: how many pictures came back. The rest of the result is the
   * server's text, left under Details rather than in the headline.
   */
  override summarize(result: string): string | undefined {
    const count = result.match(/^\[image: [^\]\n]*\]$/gm)?.length ?? 0;
    return count === 0 ? undefined : `${count} picture${count === 1 ? '' : 's'}`;
  }

  /** Pictures go along only for a model that can see them; for the others the text says they were left out. */
  async run(params: string, context: ToolRunContext): Promise<string | ToolOutput> {
    const output = await this.runForModel(params, context, { vision: context.turn.vision });
    return output.images.length > 0 ? { text: output.text, images: output.images } : output.text;
  }

  /** Text plus images, for a model that can see them. Throws ToolError with a message for the model. */
  async runForModel(params: string, context: ToolRunContext, options: { vision: boolean }): Promise<McpToolOutput> {
    const reading = this.dependencies.argumentReader.read(this.name, params, this.info.inputSchema);
    if (!reading.ok) throw new ToolError(reading.message);
    let result;
    try {
      result = await this.dependencies.servers.callTool(this.info.server, this.info.toolName, reading.arguments, {
        signal: context.signal,
        timeoutMs: this.timeoutMs,
        onProgress: (update) => context.reportProgress(describeProgress(update)),
      });
    } catch (error) {
      if (error instanceof McpCallError) throw new ToolError(error.message);
      throw error;
    }
    const output = describeCallToolResult(result, { maxCharacters: this.maxResultCharacters, keepImages: options.vision });
    if (output.isError) throw new ToolError(output.text);
    return output;
  }
}

/** Hearth tools for every MCP tool currently offered; call again on the manager's 'tools-changed'. */
export function createMcpTools(servers: McpServerManager, services: ToolServices, argumentReader = new McpArgumentReader()): McpTool[] {
  return servers.tools().map((info) => new McpTool(services, info, { servers, argumentReader }));
}
