import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Tool, type ToolClass, type ToolServices } from './tool.js';

/** tools/ beside src/: the same relative place from src/ (tsx) and from dist/src/ (compiled). */
export const toolsFolder = fileURLToPath(new URL('../../tools/', import.meta.url));

export const normalizeToolName = (name: string): string => name.trim().toLowerCase().replace(/[\s-]+/g, '_');

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  constructor(tools: Tool[]) {
    for (const tool of tools) {
      const key = normalizeToolName(tool.name);
      if (this.#tools.has(key)) throw new Error(`Two tools are named "${tool.name}"`);
      this.#tools.set(key, tool);
    }
  }

  /** Finds a tool however the model capitalised or spaced its name. */
  find(name: string): Tool | undefined {
    return this.#tools.get(normalizeToolName(name));
  }

  get all(): Tool[] {
    return [...this.#tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get names(): string[] {
    return this.all.map((tool) => tool.name);
  }

  /** The tool list as the system prompt shows it. */
  describe(): string {
    return this.all
      .map((tool) => {
        const approval = tool.actsOnWorld ? ' (asks the person for approval before it acts)' : '';
        return `- ${tool.name}: ${tool.description}${approval}\n${tool.examples.map((example) => `  ${example}`).join('\n')}`;
      })
      .join('\n');
  }
}

/** Every default-exported Tool class in the folder, constructed with the services. */
export async function loadTools(folder: string, services: ToolServices): Promise<ToolRegistry> {
  const files = fs.existsSync(folder)
    ? fs
        .readdirSync(folder)
        .filter((file) => /\.(ts|js)$/.test(file) && !/\.(d|test)\.(ts|js)$/.test(file))
        .sort()
    : [];
  const tools: Tool[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(folder, file)).href)) as { default?: unknown };
    const ToolClassFound = module.default as ToolClass | undefined;
    if (typeof ToolClassFound !== 'function' || !(ToolClassFound.prototype instanceof Tool)) {
      throw new Error(`tools/${file} must default-export a class that extends Tool`);
    }
    tools.push(new ToolClassFound(services));
  }
  return new ToolRegistry(tools);
}
