import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/runtime/logger.ts';

describe('createLogger', () => {
  it('writes to stdout synchronously, so lines keep their order when the process exits', () => {
    const logger = createLogger({ level: 'silent' }) as unknown as Record<symbol, { fd?: number; sync?: boolean }>;
    const stream = logger[pino.symbols.streamSym]!;
    expect(stream.fd).toBe(1);
    expect(stream.sync).toBe(true);
  });
});
