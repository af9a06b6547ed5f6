/*
 * Which calendar a change goes to: every calendar the account has (Calendar's calendarList), found
 * by name or id, the primary one by default, each with its own time zone: an event is written and
 * shown in its calendar's zone, not the server's.
 */
import { ToolError } from '../../engine/tools/tool.js';
import { isTimeZone } from './calendar-days.js';
import type { GoogleServices } from './google-services.js';

export interface ChosenCalendar {
  account: string;
  id: string;
  /** Its name as the person sees it in Google Calendar. */
  name: string;
  timeZone: string;
  primary: boolean;
  /** The person may add and change events in it. */
  writable: boolean;
}

/** Every calendar of the account, the primary one first. */
export async function listCalendars(google: GoogleServices, account: string, signal: AbortSignal): Promise<ChosenCalendar[]> {
  const api = await google.calendar(account);
  const response = await google.call({ account, service: 'Google Calendar' }, () => api.calendarList.list({ maxResults: 250 }, { signal }));
  const calendars = (response.data.items ?? [])
    .filter((entry) => entry.id && !entry.deleted)
    .map((entry) => ({
      account,
      id: entry.id!,
      name: (entry.summaryOverride ?? entry.summary ?? entry.id!).trim(),
      timeZone: entry.timeZone && isTimeZone(entry.timeZone) ? entry.timeZone : google.timeZone,
      primary: entry.primary === true,
      writable: entry.accessRole === 'owner' || entry.accessRole === 'writer',
    }));
  return calendars.sort((a, b) => Number(b.primary) - Number(a.primary));
}

/** The named calendar (by name or id, any case), or the primary one; to write, refused when the person cannot add events to it. */
export async function chooseCalendar(google: GoogleServices, account: string, name: string | undefined, signal: AbortSignal, use: 'read' | 'write' = 'write'): Promise<ChosenCalendar> {
  const calendars = await listCalendars(google, account, signal);
  const wanted = name?.trim().toLowerCase();
  const found = !wanted || wanted === 'primary'
    ? calendars.find((calendar) => calendar.primary)
    : (calendars.find((calendar) => calendar.name.toLowerCase() === wanted || calendar.id.toLowerCase() === wanted) ??
      calendars.find((calendar) => calendar.name.toLowerCase().includes(wanted)));
  if (!found) {
    const names = calendars.map((calendar) => `"${calendar.name}"`).join(', ');
    throw new ToolError(wanted ? `${account} has no calendar called "${name!.trim()}". Its calendars: ${names || 'none'}.` : `${account} has no primary calendar.`);
  }
  if (use === 'write' && !found.writable) throw new ToolError(`The calendar "${found.name}" of ${account} is read-only for this account; choose another: ${calendars.filter((calendar) => calendar.writable).map((calendar) => `"${calendar.name}"`).join(', ')}.`);
  return found;
}

/** "Family (sam@example.com)", or just the account for its primary calendar. */
export function calendarLabel(calendar: ChosenCalendar): string {
  return calendar.primary ? `${calendar.name === calendar.account ? '' : `${calendar.name}, `}main calendar of ${calendar.account}` : `${calendar.name} (${calendar.account})`;
}
