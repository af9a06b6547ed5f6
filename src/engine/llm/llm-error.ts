/** What went wrong talking to a model server, in words a person can act on. */
export type LlmFailure =
  | 'unreachable'
  | 'unauthorized'
  | 'context-too-long'
  | 'model-missing'
  | 'thinking-unsupported'
  | 'stream-error'
  | 'connection-dropped'
  | 'timeout'
  | 'request-rejected'
  /** The server's model process was killed (Ollama's `signal: killed`: nearly always the out-of-memory killer). */
  | 'model-killed'
  /** The server's model process ended some other way (`exit status 2`, a runner that stopped). */
  | 'model-crashed';

/**
 * One failure, classified once, here: which server (its name as the person knows it: "Ollama",
 * "llama.cpp", "GPU box"), what kind of failure, and the exact words for the details.
 */
export class LlmError extends Error {
  constructor(
    readonly failure: LlmFailure,
    message: string,
    readonly server: string,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  /** The chat's headline: the server that failed and what happened, with what to do. */
  get headline(): string {
    return failureHeadline(this.server, this.failure);
  }
}

const headlines: Record<LlmFailure, (server: string) => string> = {
  unreachable: (server) => `${server} is not answering. Check that it is running, then retry.`,
  unauthorized: (server) => `${server} refused the API key. Fix the key in .env, then restart Hearth.`,
  'context-too-long': (server) => `The conversation is too long for the model on ${server}. Start a new chat, or pick a model with a larger context.`,
  'model-missing': (server) => `That model is not available on ${server}. Pick another model.`,
  'thinking-unsupported': (server) => `That model on ${server} cannot show its thinking. Pick another model.`,
  'stream-error': (server) => `${server} stopped with an error while writing the reply.`,
  'connection-dropped': (server) => `The connection to ${server} dropped. The text so far is kept.`,
  timeout: (server) => `${server} took too long to answer, so the reply was ended. The text so far is kept.`,
  'request-rejected': (server) => `${server} could not write a reply this time. Retry, or pick another model.`,
  'model-killed': (server) =>
    `The model stopped: ${server}'s model process was killed (usually out of memory). Try a smaller model, or a shorter context: start a new chat.`,
  'model-crashed': (server) => `The model stopped: ${server}'s model process crashed. Try a smaller model, or a shorter context: start a new chat.`,
};

export function failureHeadline(server: string, failure: LlmFailure): string {
  return headlines[failure](server);
}

/** Failures a reload may cure (the server comes back): the chat's notices offer Retry for these. */
export function retryMayHelp(failure: LlmFailure): boolean {
  return failure === 'unreachable' || failure === 'connection-dropped' || failure === 'timeout';
}

export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: { code?: string } }).cause;
  const code = cause?.code ?? (error as Error & { code?: string }).code;
  return (
    error.name === 'TypeError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_SOCKET'].includes(code ?? '') ||
    // undici's own words for a body cut off ("terminated", alone): not a server's error text that
    // happens to contain the word, such as Ollama's "llama runner process has terminated".
    /^terminated$|fetch failed|socket|other side closed/i.test(error.message)
  );
}
