// Built once: an Intl formatter costs tens of microseconds to create, and a page lists 100 items.
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });
const dayWithYearFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** When something happened, as lists show it: the time today, the day this year, else the date. */
export function formatWhen(timestamp: number, now: number = Date.now()): string {
  const date = new Date(timestamp);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) return timeFormat.format(date);
  return (date.getFullYear() === today.getFullYear() ? dayFormat : dayWithYearFormat).format(date);
}
