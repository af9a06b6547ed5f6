/*
 * Gmail labels by name: the system ones (INBOX, UNREAD, STARRED...) and the person's own.
 */
import { ToolError } from '../../engine/tools/tool.js';
import type { GoogleServices } from './google-services.js';

export interface GmailLabel {
  id: string;
  name: string;
  system: boolean;
}

export async function listLabels(google: GoogleServices, account: string, signal: AbortSignal): Promise<GmailLabel[]> {
  const gmail = await google.gmail(account);
  const response = await google.call({ account, service: 'Gmail' }, () => gmail.users.labels.list({ userId: 'me' }, { signal }));
  return (response.data.labels ?? [])
    .filter((label) => label.id && label.name)
    .map((label) => ({ id: label.id!, name: label.name!, system: label.type === 'system' }));
}

/** The label with this name or id (any case); a ToolError naming the person's labels otherwise. */
export async function findLabel(google: GoogleServices, account: string, name: string, signal: AbortSignal): Promise<GmailLabel> {
  const labels = await listLabels(google, account, signal);
  const wanted = name.trim().toLowerCase();
  const found = labels.find((label) => label.name.toLowerCase() === wanted || label.id.toLowerCase() === wanted);
  if (!found) throw new ToolError(`${account} has no label "${name.trim()}". Its labels: ${labels.filter((label) => !label.system).map((label) => label.name).join(', ') || 'none of its own'}.`);
  return found;
}
