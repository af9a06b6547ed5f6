import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { webServicesFromConfig } from '../../src/providers/web/web-services.js';
import { createGoogleServices, type GoogleServices } from '../../src/providers/google/google-services.js';
import type { Tool, ToolServices } from '../../src/engine/tools/tool.js';
import { startChatHarness, type ChatHarness } from './test-app.js';
import { desktopClientFile, multipart, textPart, attachmentPart, startGoogleStandin, type GoogleStandin, type StandinMessage } from './google-standin.js';

export const account = 'sam@example.com';
export const fixedNow = new Date('2026-11-23T08:00:00Z'); // Monday, 09:00 in Paris
export const timeZone = 'Europe/Paris';

/** Mail for the default account: the kinds of message a real inbox has. */
export const fixtureMessages: StandinMessage[] = [
  {
    id: '18c2f0a1b2c3d4e5',
    threadId: 'thread-trip',
    from: 'School Office <office@school.example>',
    to: account,
    subject: 'Trip on Friday',
    date: '2026-11-20T07:15:00Z',
    messageId: '<trip-2@school.example>',
    references: '<trip-1@school.example>',
    labelIds: ['INBOX', 'UNREAD'],
    payload: multipart(
      'alternative',
      textPart('Dear parents,\n\nThe class trip is on Friday. Please reply if your child will come.\n\nThe School Office'),
      textPart('<p>Dear parents,</p><p>The <b>class trip</b> is on Friday.</p>', 'text/html'),
    ),
  },
  {
    id: '18c2f0a1b2c3d4e6',
    from: 'Garden News <news@garden.example>',
    to: account,
    subject: 'Winter tips',
    date: '2026-11-19T10:00:00Z',
    payload: textPart(
      [
        '<html><head><title>x</title><style>p { color: red }</style></head><body>',
        '<div style="display:none">preheader you cannot see</div>',
        '<script>alert("boo")</script>',
        '<h1>Winter&nbsp;tips</h1><p>Cover your roses &amp; water less.<br>Mulch &lt;now&gt;.</p>',
        '<ul><li>Tulips</li><li>Garlic</li></ul>',
        '<p>Read <a href="https://garden.example/tips">more tips</a> &#8212; &eacute;t&eacute; &#x263A;</p>',
        '</body></html>',
      ].join('\n'),
      'text/html',
    ),
  },
  {
    id: '18c2f0a1b2c3d4e7',
    from: 'Café Müller <cafe@muller.example>',
    to: account,
    subject: 'Your invoice',
    date: '2026-11-18T09:00:00Z',
    payload: multipart('mixed', textPart('Merci beaucoup, à bientôt. Prix: 12 EUR', 'text/plain', 'iso-8859-1'), attachmentPart('invoice.pdf', 'application/pdf', Buffer.from('%PDF-1.4'))),
  },
];

export interface GoogleHarness {
  standin: GoogleStandin;
  google: GoogleServices;
  tokensDir: string;
  credentialsFile: string;
  directory: string;
  services: ToolServices;
  /** A tool class built with these services. */
  tool<T extends Tool>(ToolClass: new (services: ToolServices) => T): T;
  run(tool: Tool, params: string): Promise<string>;
}

export async function startGoogleHarness(t: TestContext, options: { accounts?: string[]; authorize?: boolean; environment?: Record<string, string> } = {}): Promise<GoogleHarness> {
  const standin = await startGoogleStandin();
  standin.state.now = fixedNow;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-google-'));
  const tokensDir = path.join(directory, 'tokens');
  const credentialsFile = path.join(directory, 'credentials.json');
  fs.writeFileSync(credentialsFile, desktopClientFile(standin.url));
  t.after(async () => {
    await standin.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const names = options.accounts ?? [account];
  for (const name of names) {
    standin.addAccount(name, name === account ? { messages: structuredClone(fixtureMessages), labels: [{ id: 'Label_1', name: 'School' }] } : {});
  }
  const google = createGoogleServices({ tokensDir, credentialsFile, rootUrl: standin.rootUrl, oauthEndpoints: standin.oauthEndpoints, timeZone });
  if (options.authorize !== false) {
    for (const name of names) google.tokens.write(name, standin.issueTokens(name));
  }
  const config = loadConfig({ TOKENS_DIR: tokensDir, GOOGLE_CREDENTIALS: credentialsFile, ...options.environment });
  const services: ToolServices = { config, logger: pino({ level: 'silent' }), now: () => fixedNow, google, web: webServicesFromConfig(config) };
  return {
    standin,
    google,
    tokensDir,
    credentialsFile,
    directory,
    services,
    tool: (ToolClass) => new ToolClass(services),
    run: async (tool, params) => {
      const output = await tool.run(params, { signal: new AbortController().signal, conversationId: 1, turn: { memoryRevision: '', vision: false }, reportProgress: () => {} });
      return typeof output === 'string' ? output : output.text;
    },
  };
}

export interface GoogleChat extends ChatHarness {
  google: GoogleHarness;
  /** The HTML of each frame that showed a card waiting for approval, in order. */
  cards: string[];
  /** Until a frame shows a card waiting for approval and the chat's `count`-th tool call is the one waiting. */
  awaitingApproval(count?: number): Promise<unknown>;
  /** Answers the card that waits: the socket's `approval` command, with `always: 'yes'` when asked. */
  decide(decision: 'approve' | 'deny', always?: boolean): void;
}

/**
 * A logged-in chat on a socket whose tools reach the Google stand-in (the default account
 * connected, its mail in place) at `fixedNow`: the set-up of every chat test of the Google tools.
 */
export async function startGoogleChat(t: TestContext): Promise<GoogleChat> {
  const google = await startGoogleHarness(t);
  const harness = await startChatHarness(t, { dependencies: { toolServices: { google: google.google, now: () => fixedNow } } });
  const cards: string[] = [];
  const awaitingApproval = (count = 1) =>
    harness.socket.waitFor((message) => {
      const html = String(message.content);
      if (!html.includes('data-status="awaiting-approval"')) return false;
      cards.push(html);
      return harness.toolCalls.listForConversation(1)[count - 1]?.status === 'awaiting-approval';
    });
  const decide = (decision: 'approve' | 'deny', always = false) => {
    const call = harness.toolCalls.listForConversation(1).find((candidate) => candidate.status === 'awaiting-approval')!;
    harness.socket.send({ type: 'approval', toolCallId: String(call.id), decision, ...(always ? { always: 'yes' } : {}) });
  };
  return { ...harness, google, cards, awaitingApproval, decide };
}
