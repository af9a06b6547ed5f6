/** The sidebar's list as the server writes it: day groups in the zone the page said, and its pages. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp } from '../support/test-app.js';

const hour = 3_600_000;

/** The midnight that began yesterday in Auckland, whatever the server's zone and the date. */
function aucklandMidnightYesterday(): number {
  const parts = (timestamp: number) => {
    const list = new Intl.DateTimeFormat('en-US', { timeZone: 'Pacific/Auckland', hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(timestamp);
    return (type: string) => Number(list.find((part) => part.type === type)!.value);
  };
  const today = parts(Date.now());
  const wall = Date.UTC(today('year'), today('month') - 1, today('day') - 1);
  const seen = parts(wall);
  return wall - (Date.UTC(seen('year'), seen('month') - 1, seen('day'), seen('hour'), seen('minute')) - wall);
}

test('the list groups chats by the days of the zone the page said (hearth-zone), not the server’s', async (t) => {
  const testApp = await buildTestApp(t);
  const cookie = await testApp.login();
  // Two chats 3 hours apart around a midnight in Auckland: Yesterday and Previous 7 days there, one day in Los Angeles.
  const aucklandMidnight = aucklandMidnightYesterday();
  let clock = aucklandMidnight - 1.5 * hour;
  const store = createConversationStore(testApp.database, () => clock);
  store.createConversation('Before midnight', 'llama3.2:latest');
  clock = aucklandMidnight + 1.5 * hour;
  store.createConversation('After midnight', 'llama3.2:latest');

  const headings = async (zone: string) => {
    const list = await testApp.app.inject({ url: '/history', headers: { cookie: `${cookie}; hearth-zone=${encodeURIComponent(zone)}`, 'accept-language': 'en-GB' } });
    return [...list.body.matchAll(/<h2 class="history-group-title">([^<]+)<\/h2>[\s\S]*?class="history-title">([^<]+)</g)].map((match) => `${match[1]}: ${match[2]}`);
  };
  const aucklandDays = await headings('Pacific/Auckland');
  const angelesDays = await headings('America/Los_Angeles');
  assert.equal(aucklandDays.length, 2, `one heading each in Auckland: ${aucklandDays.join(' | ')}`);
  assert.equal(angelesDays.length, 1, `one day in Los Angeles: ${angelesDays.join(' | ')}`);
  // A name that is no zone is not used (the server's zone instead), and is never written into the page.
  const odd = await testApp.app.inject({ url: '/history', headers: { cookie: `${cookie}; hearth-zone=%3Cscript%3E` } });
  assert.equal(odd.statusCode, 200);
  assert.doesNotMatch(odd.body, /<script>/);
});

test('the list comes in pages of 100; the next page goes on under the last heading, said again only to screen readers', async (t) => {
  const testApp = await buildTestApp(t);
  const cookie = await testApp.login();
  // Mid-June 2025: all 103 hours fall in one month in any zone.
  let clock = Date.UTC(2025, 5, 10);
  const store = createConversationStore(testApp.database, () => clock);
  for (let index = 1; index <= 103; index++) {
    clock += hour;
    store.createConversation(`Chat ${index}`, 'llama3.2:latest');
  }
  // A deleted chat is not counted in a page.
  store.softDeleteConversation(50);
  const get = (url: string) => testApp.app.inject({ url, headers: { cookie } });
  const first = await get('/history');
  const titles = (body: string) => [...body.matchAll(/class="history-title">([^<]+)</g)].map((match) => match[1]);
  assert.equal(titles(first.body).length, 100);
  assert.equal(titles(first.body)[0], 'Chat 103');
  const more = /hx-get="([^"]+)" hx-target="#history-more"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
  assert.ok(more, 'a button for older chats');
  const page = (await get('/')).body;
  assert.match(page, /id="history-more"/, 'the chat page has it too');

  const second = await get(more);
  assert.deepEqual(titles(second.body), ['Chat 2', 'Chat 1']);
  assert.doesNotMatch(second.body, /history-more|No chats yet/);
  // The same month as the last heading above: not shown twice.
  assert.match(second.body, /<h2 class="history-group-title visually-hidden">/);
});
