import { parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';

export type PlistValue = string | number | boolean | Buffer | PlistValue[] | { [key: string]: PlistValue };

function elementsOf(node: Element): Element[] {
  return node.children.filter((child): child is Element => child.type === 'tag');
}

function textOf(node: Element): string {
  return node.children.map((child) => ('data' in child ? String(child.data) : '')).join('');
}

function valueOf(node: Element): PlistValue {
  switch (node.name) {
    case 'dict': {
      const entries = elementsOf(node);
      const result: Record<string, PlistValue> = {};
      for (let index = 0; index < entries.length; index += 2) {
        if (entries[index]!.name !== 'key') throw new Error(`plist: expected <key>, found <${entries[index]!.name}>`);
        result[textOf(entries[index]!)] = valueOf(entries[index + 1]!);
      }
      return result;
    }
    case 'array':
      return elementsOf(node).map(valueOf);
    case 'string':
      return textOf(node);
    case 'integer':
      return Number(textOf(node));
    case 'data':
      return Buffer.from(textOf(node).replace(/\s+/g, ''), 'base64');
    case 'true':
      return true;
    case 'false':
      return false;
    default:
      throw new Error(`plist: unknown element <${node.name}>`);
  }
}

/** A small XML property-list reader for tests (the parts configuration profiles use). */
export function parsePlist(xml: string): PlistValue {
  const document = parseDocument(xml, { xmlMode: true });
  const plist = document.children.find((child): child is Element => child.type === 'tag' && child.name === 'plist');
  if (!plist) throw new Error('plist: no <plist> root');
  const [root, ...rest] = elementsOf(plist);
  if (!root || rest.length > 0) throw new Error('plist: <plist> must hold exactly one value');
  return valueOf(root);
}
