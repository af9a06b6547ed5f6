import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/*
 * The import graph of the code, read with the TypeScript parser, and the rules of the layers
 * checked on it (tests/architecture.test.ts, docs/architecture.md). Every way one file can need
 * another counts: static imports, `import type`, `export … from`, dynamic `import()`, `import('…')`
 * types, `declare module '…'` augmentations and `new URL('./x.ts', import.meta.url)` workers.
 */

export interface ImportEdge {
  from: string;
  to: string;
  /** As written, for the message. */
  specifier: string;
}

export interface SourceFacts {
  /** Relative specifiers in the order they appear. */
  specifiers: string[];
  /** `export … from '…'` and `export { x }` of an imported x: names forwarded from elsewhere. */
  forwards: string[];
}

/** Only these files can forward names or start a worker by URL: the rest need no full parse. */
const needsParse = /\bexport\s*(type\s*)?[{*]|new URL\(/;

/**
 * What one file imports (relative specifiers only; packages are not part of the layers).
 * ts.preProcessFile finds imports of every kind without building a syntax tree (a tenth of the
 * time); the few files that may forward a name or start a worker are parsed as well.
 */
export function readSourceFacts(fileName: string, text: string): SourceFacts {
  const specifiers = ts
    .preProcessFile(text, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith('.'));
  const forwards: string[] = [];
  if (!needsParse.test(text)) return { specifiers, forwards };

  const kind = fileName.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const imported = new Set<string>();
  const addLiteral = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) && node.text.startsWith('.')) specifiers.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.name) imported.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) imported.add(element.name.text);
      if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
    } else if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) forwards.push(node.getText(source));
      else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
        if (node.exportClause.elements.some((element) => imported.has((element.propertyName ?? element.name).getText(source)))) forwards.push(node.getText(source));
      }
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.length === 2) {
      // new URL('./worker.ts', import.meta.url): a file loaded at run time, as an import is.
      const [first, base] = node.arguments as unknown as [ts.Expression, ts.Expression];
      if (base.getText(source) === 'import.meta.url') {
        if (ts.isConditionalExpression(first)) {
          addLiteral(first.whenTrue);
          addLiteral(first.whenFalse);
        } else addLiteral(first);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, forwards };
}

/** The file a relative specifier names, if it is one of `files` (a .js specifier may name the .ts source). */
export function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}.js`, `${target}/index.ts`];
  return candidates.find((candidate) => files.has(candidate));
}

export interface CodeGraph {
  files: string[];
  edges: ImportEdge[];
  /** Forwarding exports by file. */
  forwards: Map<string, string[]>;
  /** Relative specifiers that name no file we read (a typo, or a folder such as tools/). */
  unresolved: ImportEdge[];
}

/** Reads every .ts and .js file under `folders` (paths relative to `root`, with / separators). */
export function readCodeGraph(root: string, folders: string[]): CodeGraph {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of fs.readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      files.push(path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
    }
  }
  files.sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  const unresolved: ImportEdge[] = [];
  const forwards = new Map<string, string[]>();
  for (const file of files) {
    const facts = readSourceFacts(file, fs.readFileSync(path.join(root, file), 'utf8'));
    if (facts.forwards.length > 0) forwards.set(file, facts.forwards);
    for (const specifier of facts.specifiers) {
      const to = resolveSpecifier(file, specifier, known);
      if (to) edges.push({ from: file, to, specifier });
      else unresolved.push({ from: file, to: '', specifier });
    }
  }
  return { files, edges, forwards, unresolved };
}

/** Groups of files that import each other, directly or round about (Tarjan's strongly connected components, size > 1 or a self-import). */
export function findCycles(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return cycles;
}

export interface Layer {
  rank: number;
  name: string;
  /** Folders (relative, / separated) whose files are in this layer; a file belongs to its own folder only. */
  folders: string[];
}

export interface LayerRules {
  layers: Layer[];
  /** Same-layer imports that are allowed: [importing folder, imported folder]. */
  siblingLinks: Array<[string, string]>;
}

/** Every broken rule, one line each; empty when the code keeps to the layers. */
export function checkLayers(graph: Pick<CodeGraph, 'files' | 'edges' | 'forwards'>, rules: LayerRules): string[] {
  const layerOf = new Map<string, Layer>();
  for (const layer of rules.layers) for (const folder of layer.folders) layerOf.set(folder, layer);
  const allowed = new Set(rules.siblingLinks.map(([from, to]) => `${from} -> ${to}`));
  const folderOf = (file: string) => path.posix.dirname(file);
  const describe = (file: string) => {
    const layer = layerOf.get(folderOf(file));
    return layer ? `${file} (${layer.rank} ${layer.name})` : file;
  };
  const problems: string[] = [];

  for (const folder of new Set(graph.files.map(folderOf))) {
    if (!layerOf.has(folder)) problems.push(`folder without a layer: ${folder} (add it to the layer table)`);
  }
  for (const edge of graph.edges) {
    const fromFolder = folderOf(edge.from);
    const toFolder = folderOf(edge.to);
    const from = layerOf.get(fromFolder);
    const to = layerOf.get(toFolder);
    if (!from || !to || fromFolder === toFolder) continue;
    if (to.rank > from.rank) problems.push(`upward import: ${describe(edge.from)} imports ${describe(edge.to)}`);
    else if (to.rank === from.rank && !allowed.has(`${fromFolder} -> ${toFolder}`)) {
      problems.push(`undeclared sibling import: ${describe(edge.from)} imports ${describe(edge.to)} (declare ${fromFolder} -> ${toFolder}, or move the code)`);
    }
  }
  for (const cycle of findCycles(graph.files, graph.edges)) problems.push(`import cycle: ${cycle.join(' <-> ')}`);
  for (const [file, lines] of graph.forwards) for (const line of lines) problems.push(`re-export: ${file} forwards \`${line}\` (import it from where it is defined)`);
  return problems;
}
