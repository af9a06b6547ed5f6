/*
 * What an MCP server returns, turned into what the model reads: text first, images kept aside
 * for a vision model, everything else described in a line. All of it is outside data: control
 * characters go, tool and memory tags are defused, and the whole is cut at a cap with a note.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { neutralizeTags } from '../../engine/tools/tool-call-formats.js';
import { cutResult } from '../../engine/tools/tool-results.js';

export interface McpImage {
  mimeType: string;
  /** base64, as the server sent it (and as Ollama's `images` takes it). */
  data: string;
}

export interface McpToolOutput {
  text: string;
  images: McpImage[];
  /** The server said the call failed (`isError: true`): `text` is its explanation. */
  isError: boolean;
}

export interface ResultOptions {
  /** The whole text is cut here, with a note. */
  maxCharacters: number;
  /** Keep images for a vision model; otherwise they are described as omitted. */
  keepImages: boolean;
}

const maximumImages = 4;
const maximumImageBase64Characters = 8 * 1024 * 1024;
const embeddedTextCharacters = 2000;

/** Terminal escapes and control characters (tabs and newlines stay). */
export function stripControlCharacters(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** Untrusted text from a server, made safe to show the model. */
export function defuseServerText(text: string): string {
  return neutralizeTags(stripControlCharacters(text));
}

const sizeOfBase64 = (data: string) => Math.floor((data.length * 3) / 4);

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const oneLine = (text: unknown, limit = 200) => String(text ?? '').replace(/\s+/g, ' ').trim().slice(0, limit);

/** Compact JSON, cut: structured content is often large and the model needs its gist. */
function compactJson(value: unknown, limit: number): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = String(value);
  }
  return json.length > limit ? `${json.slice(0, limit)}… [cut]` : json;
}

export function describeCallToolResult(result: CallToolResult, options: ResultOptions): McpToolOutput {
  const parts: string[] = [];
  const images: McpImage[] = [];
  let hasText = false;

  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        hasText = true;
        parts.push(block.text);
        break;
      case 'image': {
        const size = formatSize(sizeOfBase64(block.data));
        const mimeType = oneLine(block.mimeType, 60);
        if (options.keepImages && images.length < maximumImages && block.data.length <= maximumImageBase64Characters) {
          images.push({ mimeType, data: block.data });
          parts.push(`[image: ${mimeType}, ${size}]`);
        } else {
          parts.push(`[image: ${mimeType}, ${size}, omitted: ${options.keepImages ? 'too many or too large' : 'this model cannot see images'}]`);
        }
        break;
      }
      case 'audio':
        parts.push(`[audio: ${oneLine(block.mimeType, 60)}, ${formatSize(sizeOfBase64(block.data))}, omitted]`);
        break;
      case 'resource_link':
        parts.push(`${oneLine(block.title ?? block.name)} <${oneLine(block.uri, 500)}>${block.description ? ` — ${oneLine(block.description)}` : ''}`);
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource && typeof resource.text === 'string') {
          hasText = true;
          const cut = resource.text.length > embeddedTextCharacters ? `${resource.text.slice(0, embeddedTextCharacters)}… [cut]` : resource.text;
          parts.push(`[resource <${oneLine(resource.uri, 500)}>]\n${cut}`);
        } else {
          const size = 'blob' in resource && typeof resource.blob === 'string' ? `, ${formatSize(sizeOfBase64(resource.blob))}` : '';
          parts.push(`[resource <${oneLine(resource.uri, 500)}>: ${oneLine(resource.mimeType ?? 'binary', 60)}${size}, omitted]`);
        }
        break;
      }
      default:
        parts.push(`[${oneLine((block as { type?: unknown }).type, 40)} content, omitted]`);
    }
  }

  // Servers that return structured content usually repeat it as text; only show it when they don't.
  if (!hasText && result.structuredContent !== undefined) parts.push(compactJson(result.structuredContent, options.maxCharacters));
  // An old-style result ({"toolResult": …}) from servers written against early protocol versions.
  if (parts.length === 0 && 'toolResult' in result) parts.push(compactJson(result.toolResult, options.maxCharacters));

  const text = cutResult(defuseServerText(parts.join('\n').trim()) || '(no output)', options.maxCharacters);
  return { text, images, isError: result.isError === true };
}
