/**
 * History at scale: a database with many conversations, written straight into DATA_DIR with
 * better-sqlite3 before the server starts, then listed, searched and opened over HTTP. The same
 * store calls made in this process, without HTTP and templates, are the baseline.
 */
import { createConversationStore, toSearchQuery } from '../../src/storage/conversation-store.js';
import { openDatabase, type SqliteDatabase } from '../../src/storage/database.js';
import { decodeBody, httpGet } from './hearth-client.js';
import { randomSource, round, roundSummary, summarize, type Summary } from './stats.js';


const commonWords = (
  'the of and to a in is it you that he was for on are with as I his they be at one have this from or had by ' +
  'word but what some we can out other were all there when up use your how said an each she which do their time ' +
  'if will way about many then them write would like so these her long make thing see him two has look more day ' +
  'could go come did number sound no most people my over know water than call first who may down side been now find'
).split(' ');
const syllables = ['ka', 'lo', 'mi', 'ren', 'ta', 'vor', 'sel', 'du', 'fin', 'gra', 'ne', 'po', 'shi', 'tur', 'wel', 'zan', 'bri', 'cor', 'dal', 'ex'];

function vocabulary(size: number, random: () => number): string[] {
  const words = new Set(commonWords);
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = '';
    for (let index = 0; index < length; index++) word += syllables[Math.floor(random() * syllables.length)];
    words.add(word);
  }
  return [...words];
}

/** Picks words with a Zipf distribution, as natural text has: a few very common, most rare. */
function zipfPicker(words: string[], random: () => number): () => string {
  const cumulative = new Float64Array(words.length);
  let total = 0;
  words.forEach((_, index) => {
    total += 1 / (index + 1);
    cumulative[index] = total;
  });
  return () => {
    const target = random() * total;
    let low = 0;
    let high = words.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return words[low]!;
  };
}

export interface SeedResult {
  conversations: number;
  messages: number;
  openConversationId: number;
  openMessages: number;
  databaseMb: number;
  seconds: number;
  /** Words of known frequency to search for. */
  queries: string[];
}

/** Fills DATA_DIR's database: one conversation of `openMessages` messages, the rest spread over the others. */
export function seedHistory(dataDir: string, totalMessages: number, conversations: number, openMessages: number): SeedResult {
  if (openMessages >= totalMessages || totalMessages - openMessages < conversations - 1) {
    throw new Error(`bench: ${totalMessages} messages cannot fill ${conversations} conversations with ${openMessages} in the first`);
  }
  const started = performance.now();
  const random = randomSource(20_260_101);
  const words = vocabulary(5000, random);
  const pick = zipfPicker(words, random);
  const sentence = (count: number) => {
    const parts: string[] = [];
    for (let index = 0; index < count; index++) parts.push(pick());
    const text = parts.join(' ');
    return text.charAt(0).toUpperCase() + text.slice(1) + '.';
  };
  const paragraph = (count: number) => {
    const sentences: string[] = [];
    let left = count;
    while (left > 0) {
      const length = Math.min(left, 6 + Math.floor(random() * 12));
      sentences.push(sentence(length));
      left -= length;
    }
    return sentences.join(' ');
  };
  const assistantText = () => {
    const blocks = [paragraph(20 + Math.floor(random() * 60))];
    const roll = random();
    if (roll < 0.25) blocks.push(Array.from({ length: 3 + Math.floor(random() * 3) }, () => `- **${pick()}** ${sentence(6)}`).join('\n'));
    else if (roll < 0.35) blocks.push('```js\n' + `const ${pick()} = ${Math.floor(random() * 100)};\nfunction ${pick()}(value) {\n  return value * 2; // ${sentence(4)}\n}\n` + '```');
    else if (roll < 0.45) blocks.push(`Use \`${pick()}\` and *${pick()}* for ${sentence(8)}`);
    if (random() < 0.5) blocks.push(paragraph(15 + Math.floor(random() * 40)));
    return blocks.join('\n\n');
  };
  const userText = () => sentence(5 + Math.floor(random() * 25));

  const database = openDatabase(dataDir);
  const insertConversation = database.prepare('INSERT INTO conversations (id, title, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const insertMessage = database.prepare(
    "INSERT INTO messages (conversation_id, role, content, status, model, created_at, updated_at) VALUES (?, ?, ?, 'complete', ?, ?, ?)",
  );
  const model = 'llama3.2:latest';
  const yearAgo = Date.now() - 365 * 86_400_000;
  const others = conversations - 1;
  const rest = totalMessages - openMessages;

  database.transaction(() => {
    let written = 0;
    for (let conversation = 1; conversation <= conversations; conversation++) {
      // Conversation 1 is the big one and the most recent; the others share what is left.
      const count = conversation === 1 ? openMessages : Math.floor((rest * (conversation - 1)) / others) - Math.floor((rest * (conversation - 2)) / others);
      const startedAt = conversation === 1 ? Date.now() - count * 60_000 : yearAgo + Math.floor(((conversation - 2) / others) * 300 * 86_400_000);
      const first = userText();
      const title = first.length > 60 ? `${first.slice(0, 59).trimEnd()}…` : first;
      insertConversation.run(conversation, title, model, startedAt, startedAt + count * 60_000);
      for (let index = 0; index < count; index++) {
        const role = index % 2 === 0 ? 'user' : 'assistant';
        const content = index === 0 ? first : role === 'user' ? userText() : assistantText();
        const time = startedAt + index * 60_000;
        insertMessage.run(conversation, role, content, role === 'assistant' ? model : null, time, time);
        written += 1;
      }
    }
    if (written !== totalMessages) throw new Error(`seeded ${written} messages, meant ${totalMessages}`);
  })();
  database.pragma('wal_checkpoint(TRUNCATE)');
  const pages = database.pragma('page_count', { simple: true }) as number;
  const pageSize = database.pragma('page_size', { simple: true }) as number;
  database.close();

  const common = words[15]!;
  const middling = words[400]!;
  const rare = words[3500]!;
  return {
    conversations,
    messages: totalMessages,
    openConversationId: 1,
    openMessages,
    databaseMb: round((pages * pageSize) / 1024 / 1024, 1),
    seconds: round((performance.now() - started) / 1000, 1),
    queries: [common, middling, rare, `${middling} ${words[60]!}`, words[1200]!.slice(0, 4), `${rare} ${common}`],
  };
}

export interface TimedCall {
  http: Summary;
  /** The same store call in this process: SQL and mapping, no HTTP or templates. */
  store: Summary;
}

export interface HistoryResult {
  seed: SeedResult;
  startupMs: number;
  list: TimedCall & { htmlBytes: number };
  search: TimedCall & { perQuery: Array<{ query: string; matches: number; httpP50: number; storeP50: number }> };
  open: TimedCall & { htmlBytes: number; wireBytes: number; encoding: string; messages: number };
  peakServerRssMb: number;
}

const browserHeaders = { 'accept-encoding': 'gzip, deflate, br, zstd' };

function time<T>(work: () => T): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

export async function measureHistory(
  baseUrl: string,
  cookie: string,
  dataDir: string,
  seed: SeedResult,
  options: { samples: number; log(line: string): void },
): Promise<Omit<HistoryResult, 'seed' | 'startupMs' | 'peakServerRssMb'>> {
  const headers = { ...browserHeaders, cookie, 'hx-request': 'true' };
  const get = async (path: string) => {
    const response = await httpGet(`${baseUrl}${path}`, headers);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return response;
  };
  const database: SqliteDatabase = openDatabase(dataDir);
  try {
    const store = createConversationStore(database);
    const count = database.prepare<[string], { matches: number }>('SELECT count(*) AS matches FROM messages_search WHERE messages_search MATCH ?');

    // Warm up both sides: first use compiles templates and fills SQLite's page cache.
    for (let index = 0; index < 3; index++) {
      await get('/history');
      await get(`/history?q=${encodeURIComponent(seed.queries[0]!)}`);
      store.search(seed.queries[0]!, 50);
    }

    const listHttp: number[] = [];
    const listStore: number[] = [];
    let listBytes = 0;
    for (let index = 0; index < options.samples; index++) {
      const response = await get('/history');
      listHttp.push(response.ms);
      listBytes = decodeBody(response).length;
      listStore.push(time(() => store.listConversations(100)));
    }

    const searchHttp: number[] = [];
    const searchStore: number[] = [];
    const perQuery = seed.queries.map((query) => ({ query, matches: count.get(toSearchQuery(query)!)?.matches ?? 0, http: [] as number[], store: [] as number[] }));
    for (let index = 0; index < options.samples; index++) {
      for (const entry of perQuery) {
        const response = await get(`/history?q=${encodeURIComponent(entry.query)}`);
        entry.http.push(response.ms);
        searchHttp.push(response.ms);
        const storeMs = time(() => store.search(entry.query, 50));
        entry.store.push(storeMs);
        searchStore.push(storeMs);
      }
    }
    options.log(`  search: ${perQuery.map((entry) => `"${entry.query}" ${entry.matches} matches`).join(', ')}`);

    const openHttp: number[] = [];
    const openStore: number[] = [];
    let last = await get(`/c/${seed.openConversationId}`);
    const samples = Math.max(3, Math.ceil(options.samples / 3));
    for (let index = 0; index < samples; index++) {
      last = await get(`/c/${seed.openConversationId}`);
      openHttp.push(last.ms);
      openStore.push(time(() => store.listMessages(seed.openConversationId)));
    }
    const encoding = String(last.headers['content-encoding'] ?? 'identity');
    const html = decodeBody(last);

    return {
      list: { http: roundSummary(summarize(listHttp)), store: roundSummary(summarize(listStore), 3), htmlBytes: listBytes },
      search: {
        http: roundSummary(summarize(searchHttp)),
        store: roundSummary(summarize(searchStore), 3),
        perQuery: perQuery.map((entry) => ({
          query: entry.query,
          matches: entry.matches,
          httpP50: round(summarize(entry.http).p50),
          storeP50: round(summarize(entry.store).p50, 3),
        })),
      },
      open: {
        http: roundSummary(summarize(openHttp)),
        store: roundSummary(summarize(openStore), 3),
        htmlBytes: html.length,
        wireBytes: last.wireBytes,
        encoding,
        messages: (html.toString('utf8').match(/class="chat-message chat-message-/g) ?? []).length,
      },
    };
  } finally {
    database.close();
  }
}
