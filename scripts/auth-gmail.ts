/*
 * npm run auth:gmail                     authorize a Google account (Gmail + Calendar) for Hearth
 * npm run auth:gmail -- me@gmail.com     authorize that account again (after "re-authorize" errors)
 * npm run auth:gmail -- --list           the authorized accounts, and whether each still works
 * npm run auth:gmail -- --remove <email> revoke Hearth's access and delete the saved tokens
 * Options: --port <n> (loopback port, default GMAIL_AUTH_PORT or 8889); --read-only (reading and
 * drafts only: no trash, labels or calendar changes).
 *
 * Tokens are saved to TOKENS_DIR/<email>.json (file 0600, folder 0700).
 */
import path from 'node:path';
import dotenv from 'dotenv';
import { ConfigError, loadConfig, type Config } from '../src/config/config.js';
import { AuthorizationError, authorizeAccount, googleScopes } from '../src/providers/google/authorize-account.js';
import { reauthorizeCommand } from '../src/providers/google/google-errors.js';
import { googleServicesFromConfig, type GoogleServices } from '../src/providers/google/google-services.js';
import { GoogleSetupError } from '../src/providers/google/oauth-client-file.js';
import { isAccountAddress } from '../src/providers/google/token-store.js';
import { ToolError } from '../src/engine/tools/tool.js';

const usage = `Usage:
  npm run auth:gmail                      authorize a Google account for Hearth
  npm run auth:gmail -- you@gmail.com     authorize that account again
  npm run auth:gmail -- --list            show authorized accounts and whether each works
  npm run auth:gmail -- --remove <email>  revoke access and delete its tokens
Options:
  --port <n>   port of the 127.0.0.1 redirect (default GMAIL_AUTH_PORT, 8889)
  --read-only  ask only to read mail and the calendar and save drafts: no trash, labels
               or calendar changes (Gmail's draft access still lets a sent draft go)`;

class UsageError extends Error {}

interface Command {
  action: 'authorize' | 'list' | 'remove' | 'help';
  account?: string;
  port?: number;
  readOnly?: boolean;
}

function parseArguments(argv: string[]): Command {
  const command: Command = { action: 'authorize' };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--list' || argument === '-l') command.action = 'list';
    else if (argument === '--read-only') command.readOnly = true;
    else if (argument === '--help' || argument === '-h') command.action = 'help';
    else if (argument === '--remove') {
      command.action = 'remove';
      command.account = argv[++index];
      if (!command.account) throw new UsageError('--remove needs the email address of the account.');
    } else if (argument === '--port' || argument.startsWith('--port=')) {
      const value = argument.includes('=') ? argument.slice('--port='.length) : argv[++index];
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port needs a port number, not "${value ?? ''}".`);
      command.port = port;
    } else if (!argument.startsWith('-') && command.account === undefined) command.account = argument;
    else throw new UsageError(`Unknown argument "${argument}".`);
  }
  // Token files are named by the lower-cased address.
  command.account = command.account?.toLowerCase();
  if (command.account !== undefined && !isAccountAddress(command.account)) throw new UsageError(`"${command.account}" is not an email address.`);
  return command;
}

async function authorize(google: GoogleServices, config: Config, command: Command): Promise<number> {
  const result = await authorizeAccount({
    google,
    port: command.port ?? config.gmailAuthPort,
    loginHint: command.account,
    readOnly: command.readOnly,
    // Read pasted addresses only when someone can type them; a pipe works too.
    input: process.stdin,
    print: (text) => console.log(text),
  });
  console.log(`\nAuthorized ${result.account}. Tokens saved to ${google.tokens.fileFor(result.account)} (readable by you only).`);
  if (command.account && command.account.toLowerCase() !== result.account) {
    console.log(`Note: you signed in as ${result.account}, not ${command.account}; ${command.account} is unchanged.`);
  }
  if (result.missingScopes.length > 0) {
    const lost = result.missingScopes.map((scope) => googleScopes[scope]).join(', ');
    console.log(`Some access was not granted, so Hearth cannot ${lost}. To fix it, run \`${reauthorizeCommand(result.account)}\` and tick every box.`);
  }
  return 0;
}

async function list(google: GoogleServices): Promise<number> {
  const accounts = google.listAccounts();
  if (accounts.length === 0) {
    console.log(`No Google accounts are authorized yet (looked in ${google.tokens.folder}). Add one with: ${reauthorizeCommand()}`);
    return 0;
  }
  console.log(`Authorized Google accounts (tokens in ${google.tokens.folder}):`);
  let broken = 0;
  for (const account of accounts) {
    try {
      const gmail = await google.gmail(account);
      await google.call({ account, service: 'Gmail' }, () => gmail.users.getProfile({ userId: 'me' }));
      console.log(`  ${account}  works`);
    } catch (error) {
      broken += 1;
      // The tools' wording speaks to the model; here the person reads it.
      const message = (error instanceof Error ? error.message : String(error)).replace(/ Ask the person to run (`[^`]+`) on the Hearth computer to authorize .*$/, ' Run $1 to authorize it again.');
      console.log(`  ${account}  does NOT work: ${message}`);
    }
  }
  return broken > 0 ? 1 : 0;
}

async function remove(google: GoogleServices, account: string): Promise<number> {
  const stored = google.tokens.read(account);
  if (!stored) {
    const known = google.listAccounts();
    console.error(`${account} is not authorized. Authorized accounts: ${known.length ? known.join(', ') : 'none'}.`);
    return 1;
  }
  const token = stored.refresh_token ?? stored.access_token;
  try {
    if (!token) throw new Error('no token saved');
    const client = await google.createOAuthClient();
    await client.revokeToken(token);
    console.log(`Revoked Hearth's access to ${account} at Google.`);
  } catch (error) {
    const status = (error as { response?: { status?: number } }).response?.status;
    if (status === 400) console.log(`Google says this authorization was already revoked or expired.`);
    else {
      const reason = error instanceof GoogleSetupError ? 'the OAuth client file is missing' : error instanceof Error ? error.message : String(error);
      console.log(`Could not revoke at Google (${reason.split('\n')[0]}). Remove Hearth's access by hand at https://myaccount.google.com/permissions`);
    }
  }
  google.tokens.remove(account);
  console.log(`Deleted ${google.tokens.fileFor(account)}.`);
  return 0;
}

/** Google's own words when it refused (a token or API error), else the error's message. */
function describeFailure(error: unknown): string {
  const data = (error as { response?: { data?: { error?: unknown; error_description?: string } } }).response?.data;
  if (typeof data?.error === 'string') return `Google refused: ${data.error}${data.error_description ? ` (${data.error_description})` : ''}. Run the command again.`;
  if (data?.error && typeof data.error === 'object') return `Google refused: ${(data.error as { message?: string }).message ?? JSON.stringify(data.error)}`;
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<number> {
  dotenv.config({ path: path.join(process.cwd(), '.env'), quiet: true });
  const command = parseArguments(process.argv.slice(2));
  if (command.action === 'help') {
    console.log(usage);
    return 0;
  }
  const config = loadConfig(process.env);
  const google = googleServicesFromConfig(config);
  if (command.action === 'list') return list(google);
  if (command.action === 'remove') return remove(google, command.account!);
  return authorize(google, config, command);
}

main()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`);
    else if (error instanceof ConfigError || error instanceof GoogleSetupError || error instanceof AuthorizationError || error instanceof ToolError) console.error(error.message);
    else console.error(`auth:gmail failed: ${describeFailure(error)}`);
    // Exit now: an open stdin or keep-alive sockets must not hold the terminal.
    process.exit(1);
  });
