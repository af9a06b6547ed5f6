/*
 * A chat about the calendar: startGoogleChat's chat (the real app and tool engine, the Ollama
 * stand-in scripted to call the Calendar tools, the Google stand-in behind the real googleapis code)
 * with the stand-in's clock at the fixed time and a second calendar, "Family", in its own zone.
 */
import type { TestContext } from 'node:test';
import type { ScriptedReply } from './ollama-standin.js';
import { account, fixedNow, startGoogleChat } from './google-setup.js';

export const reply = (content: string): ScriptedReply => ({ content });

export async function startCalendarChat(t: TestContext) {
  const chat = await startGoogleChat(t);
  chat.google.standin.state.now = fixedNow;
  chat.google.standin.accounts.get(account)!.calendars.push({ id: 'family-id@group.calendar.google.com', summary: 'Family', timeZone: 'America/New_York', accessRole: 'owner' });
  return chat;
}

export type CalendarChat = Awaited<ReturnType<typeof startCalendarChat>>;
