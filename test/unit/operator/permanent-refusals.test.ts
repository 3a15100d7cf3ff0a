// The controller's memory of pod creates refused for good: it holds for the generation refused, per
// replica type, and a spec change (a new generation) or the job's deletion forgets it.
import { describe, expect, it } from 'vitest';
import { PermanentRefusals } from '../../../src/operator/permanent-refusals.ts';

const pod = (type: string) => ({ metadata: { labels: { 'training.kubeflow.org/replica-type': type } } });

describe('PermanentRefusals', () => {
  it('blocks the refused replica type of that generation only', () => {
    const r = new PermanentRefusals();
    r.record('ns/j', 3, 'Worker', 'refused');
    expect(r.blocks('ns/j', 3, pod('worker'))).toBe(true);
    expect(r.blocks('ns/j', 3, pod('ps'))).toBe(false);
    expect(r.blocks('ns/other', 3, pod('worker'))).toBe(false);
    expect([...r.current('ns/j', 3)]).toEqual([['Worker', 'refused']]);
  });

  it('forgets the refusals once the spec changes, and when the job is gone', () => {
    const r = new PermanentRefusals();
    r.record('ns/j', 3, 'Worker', 'refused');
    r.record('ns/j', 3, 'PS', 'refused too');
    expect(r.current('ns/j', 3).size).toBe(2);
    expect(r.blocks('ns/j', 4, pod('worker'))).toBe(false);
    // The old generation does not come back either.
    expect(r.blocks('ns/j', 3, pod('worker'))).toBe(false);
    r.record('ns/j', 5, 'Worker', 'again');
    r.forget('ns/j');
    expect(r.blocks('ns/j', 5, pod('worker'))).toBe(false);
  });
});
