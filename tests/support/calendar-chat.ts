/*
 * A chat about the calendar: the real app and tool engine, the Ollama stand-in scripted to call
 * the Calendar tools, the Google stand-in behind the real googleapis code (with a second calendar,
 * "Family", in its own zone), and helpers to wait for a card and answer it.
 */
import type { TestContext } from 'node:test';
import type { ScriptedReply } from './ollama-standin.js';
import { account, fixedNow, startGoogleHarness } from './google-setup.js';
import { startChatHarness } from './test-app.js';

export const reply = (content: string): ScriptedReply => ({ content });

export async function startCalendarChat(t: TestContext) {
  const google = await startGoogleHarness(t);
  google.standin.state.now = fixedNow;
  google.standin.accounts.get(account)!.calendars.push({ id: 'family-id@group.calendar.google.com', summary: 'Family', timeZone: 'America/New_York', accessRole: 'owner' });
  const harness = await startChatHarness(t, { dependencies: { toolServices: { google: google.google, now: () => fixedNow } } });
  const cards: string[] = [];
  /** Until the `count`-th call of the chat waits on its card. */
  const awaitingApproval = (count = 1) =>
    harness.socket.waitFor((message) => {
      const html = String(message.content);
      if (!html.includes('data-status="awaiting-approval"')) return false;
      cards.push(html);
      return harness.toolCalls.listForConversation(1)[count - 1]?.status === 'awaiting-approval';
    });
  const decide = (decision: 'approve' | 'deny') => {
    const call = harness.toolCalls.listForConversation(1).find((candidate) => candidate.status === 'awaiting-approval')!;
    harness.socket.send({ type: 'approval', toolCallId: String(call.id), decision });
  };
  return { ...harness, google, cards, awaitingApproval, decide };
}

export type CalendarChat = Awaited<ReturnType<typeof startCalendarChat>>;
