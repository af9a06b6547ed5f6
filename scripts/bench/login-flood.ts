/**
 * Login flood against the real server: many source addresses, each within its login budget,
 * guess passwords while the owner asks for a one-word reply, logs in from a browser that has
 * logged in before (its device cookie) and from a new browser at a clean address. Prints how long
 * the reply and the owner's logins took, with and without the flood, and how many guesses got a
 * bcrypt verdict (401) rather than a refusal without one (429).
 *
 *   npx tsx scripts/bench/login-flood.ts [--root DIR] [--addresses 40] [--attempts 10] [--cost 12] [--delay 3000] [--paced]
 *
 * --paced: each address sends its next guess only when the last one was answered, and sends a
 * guess again a second after the server said it was too busy to check it (a patient script that
 * gets every guess its budgets allow), instead of all at once.
 *
 * --root runs another checkout's server (e.g. an export of main) with this same client, for a
 * before/after comparison. The server runs with TRUST_PROXY=127.0.0.1 so each attacker can claim
 * its own address in X-Forwarded-For (the same as 40 machines on the LAN).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import bcrypt from 'bcrypt';
import { cookieHeader, csrfTokenFrom, openChatSocket } from '../../tests/support/test-app.js';
import { freePort } from '../../tests/support/free-port.js';
import { startServer, stopServer, waitUntilAnswering } from '../../tests/support/server-process.js';
import { projectRoot } from './measured-server.js';
import { startStandinProcess } from './standin-process.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: projectRoot },
    addresses: { type: 'string', default: '40' },
    attempts: { type: 'string', default: '10' },
    cost: { type: 'string', default: '12' },
    // How long the flood runs before the owner acts (long enough for every guess to be queued).
    delay: { type: 'string', default: '3000' },
    paced: { type: 'boolean', default: false },
  },
});
const root = path.resolve(values.root!);
const addresses = Number(values.addresses);
const attempts = Number(values.attempts);
const password = 'the owner password for the flood bench';

/** One login as a client at `address` with the cookies in `jar` (none: a new browser). */
async function logInFrom(baseUrl: string, address: string, guess: string, jar = ''): Promise<{ cookies: string; status: number; busy: boolean }> {
  const headers = { 'x-forwarded-for': address, ...(jar ? { cookie: jar } : {}) };
  const page = await fetch(`${baseUrl}/login`, { headers });
  const cookies = cookieHeader(page.headers.getSetCookie(), jar);
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: guess, _csrf: csrfTokenFrom(await page.text()) }),
  });
  // "Busy" is the queue in front of bcrypt being full, not a spent budget: a retry may be checked.
  const body = await response.text();
  const busy = response.status === 429 && /server is busy/.test(body);
  return { cookies: cookieHeader(response.headers.getSetCookie(), cookies), status: response.status, busy };
}

/** One wrong guess from `address`: the status it got; a patient guesser retries while the server is busy. */
async function attemptLogin(baseUrl: string, address: string, guess: string, patient: boolean): Promise<number> {
  for (;;) {
    const result = await logInFrom(baseUrl, address, guess);
    if (!patient || !result.busy) return result.status;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-flood-'));
  // In its own process, so the flood's clients here do not slow the model's side down.
  const standin = await startStandinProcess();
  await standin.setReply({ content: 'Hello' });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startServer(
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      MEMORY_FILE: path.join(dataDir, 'memory.md'),
      OLLAMA_HOST: standin.url,
      PASSWORD_HASH: bcrypt.hashSync(password, Number(values.cost)),
      SECRET_KEY: 'f'.repeat(48),
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: 'error',
    },
    [process.execPath, '--import', 'tsx', path.join(root, 'src', 'server.ts')],
  );
  try {
    await waitUntilAnswering(server, `${baseUrl}/healthz`);
    const ownerJar = await ownerLogin(baseUrl, '10.200.0.1');
    const socket = await openChatSocket(baseUrl, ownerJar.cookies);
    let turn = 0;
    const timeReply = async () => {
      const started = performance.now();
      const finishedBefore = socket.messages.filter((message) => message.event === 'reply-finished').length;
      socket.send({ type: 'send', message: `Say one word (${(turn += 1)})` });
      await socket.waitFor(() => socket.messages.filter((message) => message.event === 'reply-finished').length > finishedBefore, 300_000);
      return performance.now() - started;
    };
    const quietReplyMs = await timeReply();
    const quietLogin = await ownerLogin(baseUrl, '10.200.0.2');
    // The owner's phone: logged in once, its session since ended; it keeps its device cookie.
    const phoneJar = ownerJar.cookies
      .split('; ')
      .filter((pair) => pair.startsWith('hearth_device='))
      .join('; ');

    const floodStarted = performance.now();
    const statuses = new Map<number, number>();
    const guess = (address: number, attempt: number) =>
      attemptLogin(baseUrl, `10.66.${Math.floor(address / 250)}.${(address % 250) + 1}`, `guess ${address}-${attempt}`, values.paced!).then(
        (status) => void statuses.set(status, (statuses.get(status) ?? 0) + 1),
        () => void statuses.set(0, (statuses.get(0) ?? 0) + 1),
      );
    const guessesFrom = async (address: number) => {
      if (!values.paced) return Promise.all(Array.from({ length: attempts }, (_, attempt) => guess(address, attempt)));
      for (let attempt = 0; attempt < attempts; attempt += 1) await guess(address, attempt);
    };
    const flood = Promise.all(Array.from({ length: addresses }, (_, address) => guessesFrom(address))).then(() => performance.now() - floodStarted);
    // Let the flood reach the server before the owner acts.
    await new Promise((resolve) => setTimeout(resolve, Number(values.delay)));
    const [floodReplyMs, floodLogin, phoneLogin, floodMs] = await Promise.all([
      timeReply(),
      ownerLogin(baseUrl, '10.200.0.3'),
      ownerLogin(baseUrl, '10.200.0.4', phoneJar),
      flood,
    ]);
    await socket.close();

    const result = {
      root,
      bcryptCost: Number(values.cost),
      addresses,
      attemptsPerAddress: attempts,
      paced: values.paced,
      ownerActsAfterMs: Number(values.delay),
      quiet: { oneWordReplyMs: Math.round(quietReplyMs), ownerLoginMs: Math.round(quietLogin.ms), ownerLoginStatus: quietLogin.status },
      flood: {
        oneWordReplyMs: Math.round(floodReplyMs),
        ownerLoginMs: Math.round(floodLogin.ms),
        ownerLoginStatus: floodLogin.status,
        ownerPhoneLoginMs: Math.round(phoneLogin.ms),
        ownerPhoneLoginStatus: phoneLogin.status,
        floodSeconds: Math.round(floodMs / 100) / 10,
        attackerStatuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
        // A 401 is a guess that bcrypt judged; a 429 was refused without bcrypt work.
        attackerBcryptVerdicts: (statuses.get(401) ?? 0) + (statuses.get(303) ?? 0),
      },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await stopServer(server);
    await standin.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The owner logging in from `address` (one that has not failed) with `jar`; how long it took and the status. */
async function ownerLogin(baseUrl: string, address: string, jar = ''): Promise<{ cookies: string; ms: number; status: number }> {
  const started = performance.now();
  const result = await logInFrom(baseUrl, address, password, jar);
  return { ...result, ms: performance.now() - started };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
