// Structured JSON logs (pino) in Kubernetes' style: capitalised messages, the object key on every line
// (`tfjob: "ns/name"`), errors under `err`. Secrets never reach the logs: tokens and env values are
// redacted wherever they could appear.
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  /** Where lines go; default stdout. Tests pass a stream to assert on output. */
  readonly destination?: NodeJS.WritableStream;
}

export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'env[*].value',
  '*.env[*].value',
  '*.*.env[*].value',
];

/**
 * Errors from the Kubernetes client carry the whole response (headers, raw body); log only what
 * helps: the HTTP status and the API server's message.
 */
export function serializeError(err: unknown): unknown {
  if (typeof err !== 'object' || err === null) return err;
  const e = err as { name?: string; message?: string; code?: unknown; body?: unknown; stack?: string };
  if (typeof e.code === 'number' && typeof e.body === 'string') {
    let message = e.body;
    try {
      const status = JSON.parse(e.body) as { message?: string; reason?: string };
      message = status.message ?? message;
      return { type: 'ApiException', code: e.code, reason: status.reason, message };
    } catch {
      return { type: 'ApiException', code: e.code, message: message.slice(0, 500) };
    }
  }
  return pino.stdSerializers.err(err as Error);
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options = {
    serializers: { err: serializeError },
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { app: opts.name ?? 'tfjob-operator' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  // Default stdout, written synchronously: pino's default asynchronous writer can reorder lines when
  // the process exits while a write is in flight (the exit flush overtakes it), and a shutdown log
  // out of order ("Stopped" before "Released the lease") misleads whoever reads it. An operator logs
  // a few lines per reconcile; a blocking write of each costs nothing that matters.
  const destination = opts.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(options, destination);
}

/** A logger that discards everything (unit tests, simulator). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
