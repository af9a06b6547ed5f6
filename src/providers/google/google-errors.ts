import { ToolError } from '../../engine/tools/tool.js';

/** The command that authorizes (again) one account; every "re-authorize" message names it. */
export function reauthorizeCommand(account?: string): string {
  return account ? `npm run auth:gmail -- ${account}` : 'npm run auth:gmail';
}

export function reauthorizeMessage(account: string, why: string): string {
  return `${why} Ask the person to run \`${reauthorizeCommand(account)}\` on the Hearth computer to authorize ${account} again.`;
}

interface ErrorFacts {
  status: number | undefined;
  /** OAuth error code ("invalid_grant") or the API's reasons ("rateLimitExceeded"). */
  reasons: string[];
  message: string;
  /** A system error code (ECONNREFUSED...) anywhere in the cause chain. */
  networkCode: string | undefined;
}

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'TimeoutError']);

/** Reads what matters out of a GaxiosError (API or token endpoint) without depending on its class. */
function factsOf(error: unknown): ErrorFacts {
  const record = (error ?? {}) as {
    message?: string;
    status?: number;
    code?: unknown;
    response?: { status?: number; data?: unknown };
  };
  const data = record.response?.data as
    | { error?: string | { message?: string; status?: string; errors?: Array<{ reason?: string }>; details?: Array<{ reason?: string }> }; error_description?: string }
    | undefined;
  const reasons: string[] = [];
  let message = record.message ?? String(error);
  if (typeof data?.error === 'string') {
    reasons.push(data.error);
    if (data.error_description) message = data.error_description;
  } else if (data?.error && typeof data.error === 'object') {
    for (const item of [...(data.error.errors ?? []), ...(data.error.details ?? [])]) if (item.reason) reasons.push(item.reason);
    if (data.error.status) reasons.push(data.error.status);
    if (data.error.message) message = data.error.message;
  }
  if (/\binvalid_grant\b/.test(record.message ?? '')) reasons.push('invalid_grant');

  let networkCode: string | undefined;
  for (let cause: unknown = error, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown; name?: unknown }).code ?? (cause as { name?: unknown }).name;
    if (typeof code === 'string' && networkCodes.has(code)) networkCode = code;
  }
  if (!networkCode && !record.response && /fetch failed|socket hang up|network/i.test(record.message ?? '')) networkCode = 'network error';
  return { status: record.response?.status ?? record.status, reasons, message, networkCode };
}

export function isInvalidGrant(error: unknown): boolean {
  return factsOf(error).reasons.includes('invalid_grant');
}

export interface ExplainOptions {
  account: string;
  /** What to say for a 404, such as "No message with id x". */
  notFound?: string;
  /** What the failed call was for, used in generic messages ("Gmail", "Calendar"). */
  service?: string;
  /** What the call does, for a refusal for want of a scope: "send mail", "add events to the calendar". */
  needs?: string;
}

/**
 * Turns a failed Google call into a ToolError whose message says what the person can do.
 * Returns the error unchanged when it is not one we understand (the engine logs it).
 */
export function explainGoogleFailure(error: unknown, options: ExplainOptions): unknown {
  if (error instanceof ToolError) return error;
  if ((error as { name?: string })?.name === 'AbortError') return error;
  const { account, notFound, service = 'Google' } = options;
  const facts = factsOf(error);
  const reasons = new Set(facts.reasons);

  if (reasons.has('invalid_grant')) {
    return new ToolError(reauthorizeMessage(account, `Google no longer accepts Hearth's authorization for ${account} (it expired or was revoked).`));
  }
  if (facts.status === 401 || reasons.has('invalid_client') || reasons.has('unauthorized_client')) {
    return new ToolError(reauthorizeMessage(account, `Google refused Hearth's credentials for ${account}.`));
  }
  if (facts.status === 404 && notFound) return new ToolError(notFound);
  const quota = ['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'dailyLimitExceeded', 'RESOURCE_EXHAUSTED', 'RATE_LIMIT_EXCEEDED'];
  if (facts.status === 429 || quota.some((reason) => reasons.has(reason))) {
    return new ToolError(`${service} usage limit reached for ${account} (Google said: ${facts.message}). Wait a minute and try again, with fewer or narrower requests.`);
  }
  if (facts.status === 403 && (reasons.has('insufficientPermissions') || reasons.has('ACCESS_TOKEN_SCOPE_INSUFFICIENT') || (reasons.has('PERMISSION_DENIED') && /scope/i.test(facts.message)))) {
    // Authorized before Hearth could act (or with boxes unticked): one line naming the command that grants it.
    if (options.needs) return new ToolError(`${account} has not allowed Hearth to ${options.needs}: run \`${reauthorizeCommand(account)}\` on the Hearth computer to grant it.`);
    return new ToolError(reauthorizeMessage(account, `${account} did not grant Hearth access to ${service} (a box was left unticked on Google's consent screen).`));
  }
  if (facts.status === 403 && (reasons.has('accessNotConfigured') || reasons.has('SERVICE_DISABLED'))) {
    return new ToolError(`The ${service} API is not enabled in the Google Cloud project of Hearth's OAuth client. Enable it in Google Cloud Console (APIs & Services → Library), then try again. Google said: ${facts.message}`);
  }
  if (facts.networkCode) {
    return new ToolError(`Could not reach Google (${facts.networkCode}). Check the Hearth computer's internet connection and try again.`);
  }
  if (facts.status !== undefined && facts.status >= 500) {
    return new ToolError(`${service} is having trouble (HTTP ${facts.status}). Try again in a few minutes.`);
  }
  if (facts.status !== undefined && facts.status >= 400) {
    return new ToolError(`${service} refused the request (HTTP ${facts.status}): ${facts.message}`);
  }
  return error;
}
