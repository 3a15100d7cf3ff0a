import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/runtime/logger.ts';

describe('createLogger', () => {
  it('writes to stdout synchronously, so lines keep their order when the process exits', () => {
    const stream = createLogger({ level: 'silent' })[pino.symbols.streamSym] as unknown as { fd?: number; sync?: boolean };
    expect(stream.fd).toBe(1);
    expect(stream.sync).toBe(true);
  });
});
