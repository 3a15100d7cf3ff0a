import { describe, expect, it } from 'vitest';
import * as messages from '../../../../src/operator/scheduling/messages.ts';

const standing = (job: string, priorityClass: string, priority: number, weight?: number): messages.Standing => ({
  job,
  priorityClass,
  priority,
  weight,
});

describe('scheduling messages', () => {
  it('says what decided a preemption: the PriorityClasses when they differ, else the weights', () => {
    expect(messages.whatDecided(standing('a', 'urgent', 1000, 0.1), standing('b', '', 0, 0.9))).toBe(
      'priority class urgent (1000) above no priority class (0)',
    );
    expect(messages.whatDecided(standing('a', 'same', 5, 0.6), standing('b', 'same', 5, 0.11))).toBe('weight 0.60 vs 0.11');
    expect(messages.whatDecided(standing('a', '', 0, 1), standing('b', '', 0, 0.7))).toBe('weight 1.00 (starving) vs 0.70');
  });

  it('says where an admitted job runs, and whether it was starving', () => {
    const replicas = [
      { type: 'PS', index: 0, node: 'n1' },
      { type: 'Worker', index: 0, node: 'n1' },
      { type: 'Worker', index: 1, node: 'n2' },
      { type: 'Worker', index: 2 },
    ];
    expect(messages.admitted(2, 0.5, undefined, replicas)).toBe(
      'Admitted with 2 worker(s) (weight 0.50) on n1 (ps-0, worker-0), n2 (worker-1)',
    );
    expect(messages.admitted(2, 1, 95, replicas)).toContain('(weight 1.00, starving after waiting 95s)');
  });

  it('tells scale-ins, scale-outs, lost nodes and replacements', () => {
    expect(messages.scaledIn(1, ['a-worker-3'], 3)).toBe('Scaled in by 1 worker(s) (a-worker-3); now 3 worker(s)');
    expect(messages.scaledOut([{ type: 'Worker', index: 3, node: 'n1' }], 4, 4, false)).toBe(
      'Scaled out by 1 worker(s) into idle capacity on n1 (worker-3); now 4 worker(s), maximum 4',
    );
    // The receiver of workers another job gave up names that job (its own event says why it gave them).
    const two = [
      { type: 'Worker', index: 3, node: 'n1' },
      { type: 'Worker', index: 4, node: 'n1' },
    ];
    expect(messages.scaledOut(two.slice(0, 1), 4, 4, false, [{ job: 'ns/donor', workers: 1 }])).toBe(
      'Scaled out by 1 worker(s) into room made by scaling in ns/donor (1 worker(s)) on n1 (worker-3); now 4 worker(s), maximum 4',
    );
    expect(messages.scaledOut(two, 5, 8, false, [{ job: 'ns/donor', workers: 1 }])).toBe(
      'Scaled out by 2 worker(s) into room made by scaling in ns/donor (1 worker(s)) and 1 into idle capacity on n1 (worker-3, worker-4); now 5 worker(s), maximum 8',
    );
    expect(messages.scaledOut(two.slice(1), 2, 8, true, [{ job: 'ns/donor', workers: 3 }])).toBe(
      'Scaled out by 1 worker(s) into room made by scaling in ns/donor (3 worker(s)) at admission on n1 (worker-4); now 2 worker(s), maximum 8',
    );
    expect(messages.nodeLost('a-worker-1', 'n2', 'no longer exists')).toBe(
      'Removed a-worker-1: its node n2 no longer exists; it will be placed again',
    );
    expect(messages.placed('a-ps-0', 'n1')).toBe('Placed a-ps-0 on n1 (replacing a lost replica)');
  });
});

describe('relocatedFrom', () => {
  it('names the job a relocation makes room for, or a consolidation of the job itself', () => {
    expect(messages.relocatedFrom(1, ['j-worker-2'], 'ns/head', 'ns/j')).toContain('so that ns/head fits');
    expect(messages.relocatedFrom(1, ['j-worker-2'], 'ns/j', 'ns/j')).toContain(
      "onto this job's other node(s) so that it runs on fewer nodes",
    );
  });
});
