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

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options = {
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { app: opts.name ?? 'tfjob-operator' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return opts.destination === undefined ? pino(options) : pino(options, opts.destination);
}

/** A logger that discards everything (unit tests, simulator). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
