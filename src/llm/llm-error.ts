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
  | 'request-rejected';

export class LlmError extends Error {
  constructor(
    readonly failure: LlmFailure,
    message: string,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

interface ErrorContext {
  host: string;
  model: string;
  streaming: boolean;
}

export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: { code?: string } }).cause;
  const code = cause?.code ?? (error as Error & { code?: string }).code;
  return (
    error.name === 'TypeError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_SOCKET'].includes(code ?? '') ||
    /fetch failed|terminated|socket|other side closed/i.test(error.message)
  );
}

/** Maps whatever ollama-js or fetch threw to one LlmError with a specific, actionable message. */
export function describeLlmError(error: unknown, context: ErrorContext): LlmError {
  if (error instanceof LlmError) return error;
  const status = (error as { status_code?: number }).status_code;
  const message = error instanceof Error ? error.message : String(error);

  if (status === 404 && /not found/i.test(message)) {
    return new LlmError(
      'model-missing',
      `The model "${context.model}" is not installed in Ollama. Pick another model, or run: ollama pull ${context.model}`,
    );
  }
  if (status === 400 && /does not support thinking/i.test(message)) {
    return new LlmError('thinking-unsupported', `The model "${context.model}" does not support thinking: ${message}`);
  }
  if (status !== undefined) {
    return new LlmError('request-rejected', `Ollama refused the request (HTTP ${status}): ${message}`);
  }
  if (isNetworkError(error)) {
    return context.streaming
      ? new LlmError(
          'connection-dropped',
          `The connection to Ollama at ${context.host} dropped in the middle of the reply. The text so far is kept; send again to retry.`,
        )
      : new LlmError(
          'unreachable',
          `Ollama is not answering at ${context.host}. Check that it is running (ollama serve) and that OLLAMA_HOST is right.`,
        );
  }
  return new LlmError('stream-error', `Ollama reported an error while writing the reply: ${message}`);
}
