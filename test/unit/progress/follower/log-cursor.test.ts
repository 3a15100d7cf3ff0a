import { describe, expect, it } from 'vitest';
import { advance, compareStamps, nextRequest, wholeSecond } from '../../../../src/progress/follower/log-cursor.ts';

const S1 = '2026-11-25T00:00:01.5Z';
const S2 = '2026-11-25T00:00:01.600000001Z';
const S3 = '2026-11-25T00:00:02.1Z';
const open = (consumed: number) => ({ consumed, segment: 'x', time: 0 });

describe('log cursor', () => {
  it('orders RFC 3339 stamps to the nanosecond, trailing zeros dropped as the kubelet writes them', () => {
    expect(compareStamps('2026-11-25T00:00:01.1Z', '2026-11-25T00:00:01.09Z')).toBeGreaterThan(0);
    expect(compareStamps('2026-11-25T00:00:01Z', '2026-11-25T00:00:01.000000001Z')).toBeLessThan(0);
    expect(compareStamps(S1, '2026-11-25T00:00:01.500Z')).toBe(0);
    expect(wholeSecond(S2)).toBe('2026-11-25T00:00:01Z');
  });

  it('asks for the tail first, then by time from the line it stopped in, and for the tail while a line outgrows a read', () => {
    expect(nextRequest({}, 2000)).toEqual({ tailLines: 2000 });
    expect(nextRequest({ stamp: S2, openStamp: S1 }, 2000)).toEqual({ sinceTime: '2026-11-25T00:00:01Z' });
    expect(nextRequest({ stamp: S2, tailLines: 15 }, 2000)).toEqual({ tailLines: 15 });
  });

  it('skips lines already read, also those sharing the last timestamp, and the rest of a line finished before', () => {
    const answer = `tail of an older line\n${S1} a\n${S1} b\n${S1} c\n${S3} d\n`;
    const r = advance({ stamp: S1, sameStamp: 2 }, {}, { sinceTime: '2026-11-25T00:00:01Z' }, answer, 1 << 18);
    expect(r.text).toBe(`${S1} c\n${S3} d\n`);
    expect(r.state).toEqual({ stamp: S3, sameStamp: 1 });
    expect(r.truncated).toBe(false);
  });

  it('continues the unfinished line exactly where the last read stopped when it comes again from its start', () => {
    const answer = `${S1} done\n${S2} 12345678\r90`;
    const r = advance(
      { stamp: S2, sameStamp: 1, openStamp: S2 },
      { open: open(5) },
      { sinceTime: '2026-11-25T00:00:01Z' },
      answer,
      1 << 18,
    );
    expect(r.text).toBe('678\r90');
    expect(r.carry.open).toEqual(open(5));
    expect(r.state).toEqual({ stamp: S2, sameStamp: 1, openStamp: S2 });
  });

  it('tells the unfinished line from an earlier one written at the same instant', () => {
    const first = advance({}, {}, { tailLines: 2000 }, `${S1} Epoch 2/2\n${S1} 1/9 bar`, 1 << 18);
    expect(first.state).toEqual({ stamp: S1, sameStamp: 2, openStamp: S1, openNth: 1 });
    const again = advance(
      first.state,
      { open: open(7) },
      { sinceTime: '2026-11-25T00:00:01Z' },
      `${S1} Epoch 2/2\n${S1} 1/9 bar\r2/9 bar`,
      1 << 18,
    );
    expect(again.text).toBe('\r2/9 bar');
  });

  it('after a read that filled the byte limit inside a line, follows its newest records; their first one is a cut into the line', () => {
    const cut = advance(
      { stamp: S1, openStamp: S1 },
      { open: open(0) },
      { sinceTime: '2026-11-25T00:00:01Z' },
      `${S1} ${'y'.repeat(99)}`,
      100,
    );
    expect(cut.truncated).toBe(true);
    expect(cut.state.tailLines).toBe(1);
    const limit = 1 << 18;
    const tail = advance(
      { stamp: S1, openStamp: S1, tailLines: 15 },
      { open: open(99) },
      { tailLines: 15 },
      `${S3} more of the bar\rnext redraw`,
      limit,
    );
    expect(tail.text).toBe('more of the bar\rnext redraw');
    expect(tail.carry.open).toMatchObject({ consumed: -1, broken: true, segment: '' });
    // Still inside the same line: the next read takes the tail again.
    expect(tail.state).toEqual({ stamp: S3, sameStamp: 1, openStamp: S1, tailLines: 15 });
    // The line ended and a new one began: back to reading by time, from the new line.
    const ended = advance(
      tail.state,
      { open: { consumed: -1, segment: 'x' } },
      { tailLines: 15 },
      `${S3} end\n${S3.replace('.1Z', '.2Z')} new`,
      limit,
    );
    expect(ended.state).toEqual({ stamp: S3.replace('.1Z', '.2Z'), sameStamp: 1, openStamp: S3.replace('.1Z', '.2Z') });
  });
});
