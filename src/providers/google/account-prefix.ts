/**
 * Splits an optional account from the front of a tool's text: "me@x.com: query" or
 * "me@x.com query". A leading address followed by a space counts only when it is an authorized
 * account — otherwise "bob@y.org" is part of the query (mail mentioning Bob). With a colon it
 * is always meant as an account, so an unknown one is reported rather than searched for.
 */
export function splitAccountPrefix(text: string, accounts: string[]): { account?: string; rest: string } {
  const match = /^\s*<?([^\s:<>@]+@[^\s:<>@]+?)>?(\s*:\s*|\s+|$)([\s\S]*)$/.exec(text);
  if (!match) return { rest: text.trim() };
  const [, address, separator, rest] = match;
  const known = accounts.find((account) => account.toLowerCase() === address!.toLowerCase());
  if (known) return { account: known, rest: rest!.trim() };
  if (separator!.includes(':')) return { account: address!, rest: rest!.trim() };
  return { rest: text.trim() };
}
