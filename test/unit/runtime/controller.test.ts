import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../../src/runtime/controller.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

/** Runs one reconcile that throws `err`; returns the log lines it wrote. */
async function linesAfterFailure(err: Error): Promise<{ level: string; msg: string }[]> {
  const out = new PassThrough();
  const lines: { level: string; msg: string }[] = [];
  out.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as { level: string; msg: string });
  });
  let calls = 0;
  const controller = new Controller({
    name: 'test',
    logger: createLogger({ level: 'debug', destination: out }),
    reconciler: () => {
      calls += 1;
      return calls === 1 ? Promise.reject(err) : Promise.resolve(undefined);
    },
  });
  controller.start();
  controller.enqueue('ns/a');
  while (calls === 0) await new Promise((r) => setTimeout(r, 5));
  await controller.stop();
  return lines.filter((l) => l.msg.includes('econcile') || l.msg.includes('gone'));
}

const apiError = (code: number): Error => Object.assign(new Error(`HTTP ${code}`), { code, body: '{"message":"x"}' });

describe('controller error levels', () => {
  it('logs an unexpected error at error level', async () => {
    const lines = await linesAfterFailure(apiError(500));
    expect(lines.map((l) => [l.level, l.msg])).toContainEqual(['error', 'Reconciler error; requeued with backoff']);
  });

  it('logs a conflict at info and a 404 (the object was deleted meanwhile) at debug', async () => {
    expect((await linesAfterFailure(apiError(409))).map((l) => [l.level, l.msg])).toContainEqual([
      'info',
      'Reconcile hit a conflict; requeued',
    ]);
    const gone = await linesAfterFailure(apiError(404));
    expect(gone.map((l) => [l.level, l.msg])).toContainEqual(['debug', 'Object gone during reconcile; requeued']);
    expect(gone.some((l) => l.level === 'error')).toBe(false);
  });
});
