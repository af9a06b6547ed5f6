import { maxCardLinks, type Tool, type ToolLink } from '../../engine/tools/tool.js';
import type { StoredToolCall } from '../../storage/tool-call-store.js';

/** A link as a card shows it: an http(s) address, its title on one short line, and its host. */
export interface CardLink {
  href: string;
  title: string;
  host: string;
}

/** The link if its address is http or https (a `javascript:` or `data:` one is dropped), tidied for the card. */
function cardLink(link: ToolLink): CardLink | undefined {
  let url: URL;
  try {
    url = new URL(link.href);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const title = link.title.slice(0, 400).replace(/\s+/g, ' ').trim() || url.href;
  return { href: url.href, title: title.length > 120 ? `${title.slice(0, 119)}…` : title, host: url.host };
}

/**
 * The links a finished call's card shows, from its tool (none for a call still running, failed
 * or from a tool no longer installed). Titles and addresses are outside text: the template
 * escapes them, and only http(s) addresses are kept.
 */
export function linksForCard(call: Pick<StoredToolCall, 'status' | 'result'>, tool: Pick<Tool, 'links'> | undefined): CardLink[] {
  if (call.status !== 'done' || !tool) return [];
  const links: CardLink[] = [];
  for (const link of tool.links(call.result)) {
    const shown = cardLink(link);
    if (shown) links.push(shown);
    if (links.length === maxCardLinks) break;
  }
  return links;
}
