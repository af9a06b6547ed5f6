/**
 * The chat header and finding things again: renaming a chat, search results that open the chat
 * at the matching message (a window of messages around it), and tool cards in plain words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messagePageSize } from '../../src/web/chat/chat-reader.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp, csrfTokenFrom, openChatSocket } from '../support/test-app.js';

type Harness = Awaited<ReturnType<typeof buildTestApp>>;

/** A conversation of `count` messages, alternating user and assistant, numbered from 1 in their text. */
function seedConversation(harness: Harness, count: number, title = 'A long chat') {
  const store = createConversationStore(harness.database);
  const conversation = store.createConversation(title, 'llama3');
  const ids: number[] = [];
  const insert = harness.database.transaction(() => {
    for (let index = 1; index <= count; index++) {
      const role = index % 2 === 1 ? 'user' : 'assistant';
      const message = store.addMessage(conversation.id, role, `message number ${index} here`);
      if (role === 'assistant') store.updateMessage(message.id, { html: `<p>message number ${index} here</p>` });
      ids.push(message.id);
    }
  });
  insert();
  return { store, conversation, ids };
}

const messageIdsIn = (html: string) => [...html.matchAll(/<article[^>]* id="message-(\d+)"/g)].map((match) => Number(match[1]));
const loaderUrlIn = (html: string, loader: 'load-earlier' | 'load-later') =>
  new RegExp(`class="${loader}" hx-get="([^"]+)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');

async function loggedIn(t: Parameters<typeof buildTestApp>[0]) {
  const harness = await buildTestApp(t);
  const cookie = await harness.login();
  const page = await harness.app.inject({ method: 'GET', url: '/', headers: { cookie } });
  return { harness, cookie, csrf: csrfTokenFrom(page.body) };
}

test('renaming from the page (htmx) answers HTML: the title area renamed, the tab\'s title and the sidebar item; a refusal is the form again, open, with its words', async (t) => {
  const { harness, cookie, csrf } = await loggedIn(t);
  const { store, conversation } = seedConversation(harness, 2, 'Auto title');
  const rename = (title: string) =>
    harness.app.inject({
      method: 'POST',
      url: `/c/${conversation.id}/title`,
      headers: { cookie, accept: 'text/html', 'hx-request': 'true' },
      payload: { title, _csrf: csrf },
    });

  const ok = await rename('  Trip <to> York ');
  assert.equal(ok.statusCode, 200);
  assert.match(ok.headers['content-type'] as string, /^text\/html/);
  assert.match(ok.body, /^<title>Trip &lt;to&gt; York · Hearth<\/title>/);
  assert.match(ok.body, /<span class="chat-title-text" id="chat-title-text">Trip &lt;to&gt; York<\/span>/);
  assert.match(ok.body, /<dialog class="chat-rename" id="chat-rename"[^>]*>/);
  assert.doesNotMatch(ok.body, /<dialog class="chat-rename"[^>]* open/, 'the rename dialog is closed');
  assert.match(ok.body, /<form class="chat-title-form" id="chat-title-form"[^>]*hx-post="\/c\/\d+\/title"/);
  assert.match(ok.body, new RegExp(`<hx-partial hx-target="#history-item-${conversation.id}" hx-swap="outerHTML">\\s*<li class="history-item history-item-current"[\\s\\S]*<span class="history-title">Trip &lt;to&gt; York</span>`));
  assert.equal(store.getConversation(conversation.id)!.title, 'Trip <to> York');

  const empty = await rename('   ');
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /<p class="chat-title-error" id="chat-title-error" role="alert">The title cannot be empty.<\/p>/);
  assert.match(empty.body, /<dialog class="chat-rename" id="chat-rename"[^>]* open>/, 'the rename dialog stays open');
  assert.match(empty.body, /<span class="chat-title-text" id="chat-title-text">Trip &lt;to&gt; York<\/span>/, 'the name is unchanged');
  assert.doesNotMatch(empty.body, /<title>/);
});

test('renaming a chat: trimmed, 1–120 characters, shown in the header, the list and the tab', async (t) => {
  const { harness, cookie, csrf } = await loggedIn(t);
  const { store, conversation } = seedConversation(harness, 2, 'Auto title');
  const rename = (title: unknown, headers: Record<string, string> = {}, id = conversation.id) =>
    harness.app.inject({
      method: 'POST',
      url: `/c/${id}/title`,
      headers: { cookie, 'x-csrf-token': csrf, accept: 'application/json', ...headers },
      payload: { title },
    });

  const ok = await rename('   Trip   to\n York  ');
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { id: conversation.id, title: 'Trip to York' });
  assert.equal(store.getConversation(conversation.id)!.title, 'Trip to York');

  const page = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}`, headers: { cookie } });
  assert.match(page.body, /<title>Trip to York · Hearth<\/title>/);
  assert.match(page.body, /<h1 class="chat-title" id="chat-title">.*<span class="chat-title-text" id="chat-title-text">Trip to York<\/span>/);
  assert.equal(page.body.match(/<h1[\s>]/g)?.length, 1, 'one h1 on the page');
  assert.match(page.body, /<span class="history-title">Trip to York<\/span>/);

  const empty = await rename('  \n ');
  assert.equal(empty.statusCode, 400);
  assert.equal(empty.json().error, 'The title cannot be empty.');
  const tooLong = await rename('x'.repeat(121));
  assert.equal(tooLong.statusCode, 400);
  assert.equal(tooLong.json().error, 'The title is 121 characters long; the limit is 120.');
  const notText = await rename(['a list']);
  assert.equal(notText.statusCode, 400);
  assert.equal(store.getConversation(conversation.id)!.title, 'Trip to York', 'bad input changes nothing');
  assert.equal((await rename('y'.repeat(120))).statusCode, 200, '120 characters are fine');
  assert.equal((await rename('Trip to York')).statusCode, 200);

  const missing = await rename('Nowhere', {}, 999_999);
  assert.equal(missing.statusCode, 404);
  assert.match(missing.json().error, /does not exist/);

  // Without the CSRF token nothing changes.
  const forged = await harness.app.inject({
    method: 'POST',
    url: `/c/${conversation.id}/title`,
    headers: { cookie, accept: 'application/json' },
    payload: { title: 'Forged' },
  });
  assert.equal(forged.statusCode, 403);
  assert.equal(store.getConversation(conversation.id)!.title, 'Trip to York');

  // Logged out: refused.
  const anonymous = await harness.app.inject({ method: 'POST', url: `/c/${conversation.id}/title`, headers: { accept: 'application/json', 'hx-request': 'true' }, payload: { title: 'x' } });
  assert.equal(anonymous.statusCode, 401);

  // Without JavaScript the form posts and comes back to the chat.
  const form = await harness.app.inject({
    method: 'POST',
    url: `/c/${conversation.id}/title`,
    headers: { cookie, accept: 'text/html' },
    payload: { title: 'From the form', _csrf: csrf },
  });
  assert.equal(form.statusCode, 303);
  assert.equal(form.headers.location, `/c/${conversation.id}`);
  assert.equal(store.getConversation(conversation.id)!.title, 'From the form');
});

test('a title the person set is never replaced by an automatic one', async (t) => {
  const { harness } = await loggedIn(t);
  const store = createConversationStore(harness.database);
  const named = store.createConversation('first words', 'llama3');
  const unnamed = store.createConversation('first words', 'llama3');
  assert.equal(store.setAutomaticTitle(unnamed.id, 'A better automatic title'), true);
  assert.equal(store.getConversation(unnamed.id)!.title, 'A better automatic title');
  store.renameConversation(named.id, 'Mine');
  assert.equal(store.setAutomaticTitle(named.id, 'A better automatic title'), false);
  assert.equal(store.getConversation(named.id)!.title, 'Mine');
});

test('a search result links to the matching message, and the snippet keeps a late match in view', async (t) => {
  const { harness, cookie } = await loggedIn(t);
  const { store, conversation, ids } = seedConversation(harness, 10);
  // Long words: SQLite's window of a dozen words would leave the match far past a sidebar line.
  const long = store.addMessage(conversation.id, 'user', `${'extraordinarily-hyphenated internationalization considerations '.repeat(40)}the zebracorn appears at last`);
  const response = await harness.app.inject({ method: 'GET', url: '/history?q=number 7', headers: { cookie } });
  assert.match(response.body, new RegExp(`href="/c/${conversation.id}\\?at=${ids[6]}&amp;q=number%207#message-${ids[6]}"`));

  const late = await harness.app.inject({ method: 'GET', url: '/history?q=zebracorn', headers: { cookie } });
  assert.match(late.body, new RegExp(`href="/c/${conversation.id}\\?at=${long.id}&amp;q=zebracorn#message-${long.id}"`));
  const snippet = /<span class="history-snippet">(.*?)<\/span>/.exec(late.body)?.[1] ?? '';
  assert.match(snippet, /<mark>zebracorn<\/mark>/);
  // The match is near the start of the snippet, so a one-line sidebar shows it.
  assert.ok(snippet.indexOf('<mark>') <= 26, `the match sits early in the snippet: ${snippet}`);
  assert.match(snippet, /<mark>zebracorn<\/mark> appears at last$/);
  assert.ok(snippet.startsWith('…'), 'the cut is marked');
});

test('a chat opened at a message far back shows a window around it, with loaders above and below', async (t) => {
  const { harness, cookie } = await loggedIn(t);
  const { conversation, ids } = seedConversation(harness, 300);
  const target = ids[100]!;
  const page = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}?at=${target}&q=number`, headers: { cookie } });
  assert.equal(page.statusCode, 200);
  const shown = messageIdsIn(page.body);
  assert.equal(shown.length, messagePageSize);
  assert.ok(shown.includes(target));
  assert.deepEqual(shown, ids.slice(ids.indexOf(shown[0]!), ids.indexOf(shown[0]!) + messagePageSize), 'one unbroken run');
  assert.ok(shown.indexOf(target) >= 5 && shown.indexOf(target) < 20, 'some context above the match, more below');
  assert.match(page.body, new RegExp(`id="chat-thread"[^>]*data-highlight="${target}"`));
  // The searched word is marked in that message only, by the server.
  assert.equal(page.body.match(/<mark class="search-mark">/g)?.length, 1);
  assert.match(page.body, new RegExp(`id="message-${target}-body" hx-ignore>message <mark class="search-mark">number</mark> 101 here</div>`));
  assert.equal(loaderUrlIn(page.body, 'load-earlier'), `/c/${conversation.id}/messages?before=${shown[0]}`);
  assert.equal(loaderUrlIn(page.body, 'load-later'), `/c/${conversation.id}/messages?after=${shown.at(-1)}`);
  assert.ok(!page.body.includes('message number 300 here'), 'the newest messages are not on the page');

  // The later loader walks down to the newest message, and stops there.
  const seen = [...shown];
  let url = loaderUrlIn(page.body, 'load-later');
  let pages = 0;
  while (url) {
    const response = await harness.app.inject({ method: 'GET', url, headers: { cookie, 'hx-request': 'true' } });
    assert.equal(response.statusCode, 200);
    assert.ok(!response.body.includes('<html'), 'a fragment, not a whole page');
    assert.ok(!response.body.includes('load-earlier'));
    seen.push(...messageIdsIn(response.body));
    url = loaderUrlIn(response.body, 'load-later');
    assert.ok(++pages < 10, 'the pages end');
  }
  assert.deepEqual(seen, ids.slice(ids.indexOf(shown[0]!)));

  // A match among the newest messages opens the usual newest page (no later loader).
  const recent = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}?at=${ids[295]}`, headers: { cookie } });
  assert.deepEqual(messageIdsIn(recent.body).slice(-1), [ids[299]]);
  assert.equal(loaderUrlIn(recent.body, 'load-later'), undefined);

  // Another chat's message id opens this chat at its newest page.
  const other = seedConversation(harness, 3);
  const fallback = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}?at=${other.ids[1]}`, headers: { cookie } });
  assert.equal(fallback.statusCode, 200);
  assert.deepEqual(messageIdsIn(fallback.body), ids.slice(-messagePageSize));
  assert.ok(!fallback.body.includes('data-highlight'));
  // Nonsense is not a message id: a page that says so, not a guess.
  for (const at of ['abc', '-4']) {
    const refused = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}?at=${at}`, headers: { cookie, accept: 'text/html' } });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /The message id in the address must be a whole number from 1 to 9007199254740991\./);
  }
  const bad = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}/messages?after=x`, headers: { cookie } });
  assert.equal(bad.statusCode, 400);
  const missing = await harness.app.inject({ method: 'GET', url: `/c/999999/messages?after=1`, headers: { cookie } });
  assert.equal(missing.statusCode, 404);
});

test('a socket for a window away from the newest end does not pour newer messages into it', async (t) => {
  const { harness, cookie } = await loggedIn(t);
  const { conversation, ids } = seedConversation(harness, 300);
  const baseUrl = await harness.listen();
  // A normal page that shows up to message 100 is caught up with the 200 after it.
  const normal = await openChatSocket(baseUrl, cookie, `${conversation.id}&after=${ids[99]}`);
  t.after(() => normal.close());
  await normal.waitFor((message) => message.target === '#chat-thread' && String(message.content).includes(`id="message-${ids[299]}"`));
  // A window says so and gets nothing but live updates.
  const partial = await openChatSocket(baseUrl, cookie, `${conversation.id}&after=${ids[99]}&window=partial`);
  t.after(() => partial.close());
  // The ping proves the socket is up: its error notice arrives, and nothing came before it.
  partial.send({ type: 'nonsense' });
  await partial.waitFor((message) => String(message.content).includes('Unknown request type'));
  assert.equal(partial.messages.filter((message) => /<article/.test(String(message.content))).length, 0);
});
