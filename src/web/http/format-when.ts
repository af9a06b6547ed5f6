/*
 * Built once, on the first list shown: an Intl formatter costs tens of microseconds to create
 * and a page lists 100 items, and the first one loads ICU's locale data (about 8 MB of memory
 * and 0.1 s), which a server that only just started does not need yet.
 */
let formats: { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat; dayWithYear: Intl.DateTimeFormat } | undefined;
const dateFormats = () =>
  (formats ??= {
    time: new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' }),
    day: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' }),
    dayWithYear: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' }),
  });

/** When something happened, as lists show it: the time today, the day this year, else the date. */
export function formatWhen(timestamp: number, now: number = Date.now()): string {
  const date = new Date(timestamp);
  const today = new Date(now);
  const { time, day, dayWithYear } = dateFormats();
  if (date.toDateString() === today.toDateString()) return time.format(date);
  return (date.getFullYear() === today.getFullYear() ? day : dayWithYear).format(date);
}
