import type { FastifyRequest } from 'fastify';

/*
 * Times as the person reads them: in their time zone and with their language's clock (24 h or
 * AM/PM), not the server's. The page says its zone once, in a cookie (public/install.js); the
 * language is the browser's first Accept-Language, which is what the page's own Intl uses. The
 * sidebar and every message time (views/partials/message-time.eta) are written here, so they agree.
 */

/** The cookie in which the page says its IANA time zone, such as "Pacific/Auckland". */
export const timeZoneCookie = 'hearth-zone';

/**
 * Where times are written when the page has not said its zone yet: the server's own. Asked on
 * first use: any Intl formatter loads ICU's locale data (about 8 MB), which a server that has only
 * just started does not need yet.
 */
let serverZone: string | undefined;
const serverTimeZone = () => (serverZone ??= new Intl.DateTimeFormat().resolvedOptions().timeZone);
const fallbackLanguage = 'en-GB';
const dayMs = 86_400_000;

/** A day group of the sidebar: Today, Yesterday, Previous 7 days, then one per month. */
export interface DayGroup {
  key: string;
  label: string;
}

export interface PersonalTime {
  readonly zone: string;
  /** As a list shows it: the time today and yesterday, the weekday this week, then the date. */
  listTime(timestamp: number, now?: number): string;
  /** Which sidebar group it falls in. */
  dayGroup(timestamp: number, now?: number): DayGroup;
  /** The whole date and time, for a title. */
  exact(timestamp: number): string;
  /** When a message was written: "14:05" today, "yesterday 14:05", "Mon 14:05", "3 Nov 14:05", "3 Nov 2025"; and to the second. */
  messageTime(timestamp: number, now?: number): { text: string; exact: string };
}

interface Formats {
  parts: Intl.DateTimeFormat;
  time: Intl.DateTimeFormat;
  weekday: Intl.DateTimeFormat;
  day: Intl.DateTimeFormat;
  dayWithYear: Intl.DateTimeFormat;
  month: Intl.DateTimeFormat;
  monthWithYear: Intl.DateTimeFormat;
  exact: Intl.DateTimeFormat;
  exactSeconds: Intl.DateTimeFormat;
}

/*
 * Built on first use and kept per zone and language: an Intl formatter costs tens of microseconds
 * to create and a page lists 100 items, and the first one loads ICU's locale data (about 8 MB of
 * memory and 0.1 s), which a server that only just started does not need yet. A household uses a
 * zone or two; the cache is emptied if odd cookies ever fill it.
 */
const formatsCache = new Map<string, Formats>();
const formatsCacheLimit = 32;

function formatsFor(language: string, zone: string): Formats {
  const key = `${language}|${zone}`;
  let formats = formatsCache.get(key);
  if (formats) return formats;
  const make = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(language, { timeZone: zone, ...options });
  formats = {
    // Numbers only, whatever the language: read back into a day number.
    parts: new Intl.DateTimeFormat('en-US-u-nu-latn', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' }),
    time: make({ hour: '2-digit', minute: '2-digit' }),
    weekday: make({ weekday: 'short' }),
    day: make({ day: 'numeric', month: 'short' }),
    dayWithYear: make({ day: 'numeric', month: 'short', year: 'numeric' }),
    month: make({ month: 'long' }),
    monthWithYear: make({ month: 'long', year: 'numeric' }),
    exact: make({ dateStyle: 'full', timeStyle: 'short' }),
    exactSeconds: make({ dateStyle: 'full', timeStyle: 'medium' }),
  };
  if (formatsCache.size >= formatsCacheLimit) formatsCache.clear();
  formatsCache.set(key, formats);
  return formats;
}

const checkedZones = new Map<string, string | undefined>();

/** An IANA zone name this server's Intl knows ("Europe/Paris", "UTC"), or undefined. */
export function checkTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(value)) return undefined;
  // Every page asks; a formatter is made once per name (unknown names included), not per request.
  if (checkedZones.has(value)) return checkedZones.get(value);
  let checked: string | undefined;
  try {
    checked = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    checked = undefined;
  }
  if (checkedZones.size >= formatsCacheLimit) checkedZones.clear();
  checkedZones.set(value, checked);
  return checked;
}

/** The first language of an Accept-Language header that Intl can format in. */
export function checkLanguage(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const first = header.split(',', 1)[0]!.split(';', 1)[0]!.trim();
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/.test(first)) return undefined;
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([first])[0];
  } catch {
    return undefined;
  }
}

/**
 * Times in `zone` (the server's when not given or unknown) with the clock of `language`. Nothing
 * is asked of Intl until a time is written: a default `timeIn()` made at start (the chat reader's)
 * leaves ICU's data unloaded until a page shows a time.
 */
export function timeIn(zone?: string, language?: string): PersonalTime {
  let checkedZone: string | undefined;
  let chosen: Formats | undefined;
  const zoneOf = () => (checkedZone ??= checkTimeZone(zone) ?? serverTimeZone());
  const formats = () => (chosen ??= formatsFor(checkLanguage(language) ?? fallbackLanguage, zoneOf()));
  /** The calendar day in the zone, as days since 1970. */
  const dayNumber = (timestamp: number) => {
    const parts = formats().parts.formatToParts(timestamp);
    const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
    return Date.UTC(part('year'), part('month') - 1, part('day')) / dayMs;
  };
  const yearOf = (timestamp: number) => new Date(dayNumber(timestamp) * dayMs).getUTCFullYear();
  return {
    get zone() {
      return zoneOf();
    },
    listTime(timestamp, now = Date.now()) {
      const days = dayNumber(now) - dayNumber(timestamp);
      if (days <= 1) return formats().time.format(timestamp);
      if (days < 7) return formats().weekday.format(timestamp);
      return (yearOf(timestamp) === yearOf(now) ? formats().day : formats().dayWithYear).format(timestamp);
    },
    dayGroup(timestamp, now = Date.now()) {
      const days = dayNumber(now) - dayNumber(timestamp);
      if (days <= 0) return { key: 'today', label: 'Today' };
      if (days === 1) return { key: 'yesterday', label: 'Yesterday' };
      if (days <= 7) return { key: 'week', label: 'Previous 7 days' };
      const date = new Date(dayNumber(timestamp) * dayMs);
      const key = `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
      return { key, label: (yearOf(timestamp) === yearOf(now) ? formats().month : formats().monthWithYear).format(timestamp) };
    },
    exact: (timestamp) => formats().exact.format(timestamp),
    messageTime(timestamp, now = Date.now()) {
      const days = dayNumber(now) - dayNumber(timestamp);
      const clock = formats().time.format(timestamp);
      const sameYear = yearOf(timestamp) === yearOf(now);
      const text =
        days <= 0 ? clock
        : days === 1 ? `yesterday ${clock}`
        : days < 7 ? `${formats().weekday.format(timestamp)} ${clock}`
        : sameYear ? `${formats().day.format(timestamp)} ${clock}`
        : formats().dayWithYear.format(timestamp);
      return { text, exact: formats().exactSeconds.format(timestamp) };
    },
  };
}

/** The person's times for this request: the zone their page said (cookie), their browser's language. */
export function personalTime(request: FastifyRequest): PersonalTime {
  return timeIn(request.cookies?.[timeZoneCookie], request.headers['accept-language']);
}

/** When something happened, as lists show it, in the server's zone (pages that do not know the person's). */
export function formatWhen(timestamp: number, now: number = Date.now()): string {
  return timeIn().listTime(timestamp, now);
}
