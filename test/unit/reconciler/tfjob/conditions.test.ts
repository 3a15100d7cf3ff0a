import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobCondition } from '../../../../src/api/v1/schema.ts';
import { ensureCreated, newCondition, setCondition, updateConditions } from '../../../../src/reconciler/tfjob/conditions.ts';
import { at } from './builders.ts';

type Triple = [type: string, status: string, reason: string];
const shape = (conditions: readonly JobCondition[]): Triple[] => conditions.map((c) => [c.type, c.status, c.reason ?? '']);

const created = (list: readonly JobCondition[], t = 0) =>
  updateConditions(list, 'Created', 'True', 'TFJobCreated', 'TFJob test-job is created.', at(t));
const running = (list: readonly JobCondition[], t = 0) =>
  updateConditions(list, 'Running', 'True', 'TFJobRunning', 'TFJob default/test-job is running.', at(t));

describe('condition-list algorithm (compat §1.5)', () => {
  it('appends new conditions at the end with both timestamps set to now', () => {
    const list = created([], 5);
    expect(list).toEqual([
      {
        type: 'Created',
        status: 'True',
        reason: 'TFJobCreated',
        message: 'TFJob test-job is created.',
        lastUpdateTime: '2024-09-10T10:00:05Z',
        lastTransitionTime: '2024-09-10T10:00:05Z',
      },
    ]);
  });

  it('same type, status and reason is a no-op (same array, message and timestamps untouched)', () => {
    const list = running(created([]), 1);
    const again = updateConditions(list, 'Running', 'True', 'TFJobRunning', 'another message', at(9));
    expect(again).toBe(list);
  });

  it('same status with another reason keeps lastTransitionTime, updates lastUpdateTime, moves to the end', () => {
    let list = running(created([]), 1);
    list = updateConditions(list, 'Created', 'True', 'OtherReason', 'm', at(7));
    expect(shape(list)).toEqual([
      ['Running', 'True', 'TFJobRunning'],
      ['Created', 'True', 'OtherReason'],
    ]);
    expect(list[1]).toMatchObject({ lastTransitionTime: '2024-09-10T10:00:00Z', lastUpdateTime: '2024-09-10T10:00:07Z' });
  });

  it('Running and Restarting replace each other', () => {
    let list = running(created([]));
    list = updateConditions(
      list,
      'Restarting',
      'True',
      'TFJobRestarting',
      'job test-job is restarting because Worker replica(s) failed.',
      at(1),
    );
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Restarting', 'True', 'TFJobRestarting'],
    ]);
    list = running(list, 2);
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Running', 'True', 'TFJobRunning'],
    ]);
  });

  it('success turns Running to False in place (reason and message kept) and goes last', () => {
    let list = running(created([]), 1);
    list = updateConditions(list, 'Succeeded', 'True', 'TFJobSucceeded', 'TFJob ml/dist successfully completed.', at(300));
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Running', 'False', 'TFJobRunning'],
      ['Succeeded', 'True', 'TFJobSucceeded'],
    ]);
    expect(list[1]).toMatchObject({ message: 'TFJob default/test-job is running.', lastTransitionTime: '2024-09-10T10:00:01Z' });
  });

  it('a fast job may go straight to [Created, Succeeded]', () => {
    const list = updateConditions(created([]), 'Succeeded', 'True', 'TFJobSucceeded', 'm', at(1));
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Succeeded', 'True', 'TFJobSucceeded'],
    ]);
  });

  it('Restarting is not cleared by Failed; once Failed nothing changes any more', () => {
    let list = updateConditions(created([]), 'Restarting', 'True', 'TFJobRestarting', 'r', at(1));
    list = updateConditions(list, 'Failed', 'True', 'TFJobFailed', 'f', at(2));
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Restarting', 'True', 'TFJobRestarting'],
      ['Failed', 'True', 'TFJobFailed'],
    ]);
    expect(running(list, 3)).toBe(list);
    expect(updateConditions(list, 'Succeeded', 'True', 'TFJobSucceeded', 's', at(3))).toBe(list);
  });

  it('Succeeded then Failed in one pass leaves both True, Failed last (State column shows Failed)', () => {
    let list = running(created([]));
    list = updateConditions(list, 'Succeeded', 'True', 'TFJobSucceeded', 's', at(1));
    list = updateConditions(list, 'Failed', 'True', 'TFJobFailed', 'f', at(1));
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Running', 'False', 'TFJobRunning'],
      ['Succeeded', 'True', 'TFJobSucceeded'],
      ['Failed', 'True', 'TFJobFailed'],
    ]);
  });

  it('suspend/resume sequence of the upstream suspend test (compat §2.11)', () => {
    let list = running(created([]), 1);
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Running', 'True', 'TFJobRunning'],
    ]);
    list = updateConditions(list, 'Running', 'False', 'TFJobSuspended', 'TFJob test-job is suspended.', at(2));
    list = updateConditions(list, 'Suspended', 'True', 'TFJobSuspended', 'TFJob test-job is suspended.', at(2));
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Running', 'False', 'TFJobSuspended'],
      ['Suspended', 'True', 'TFJobSuspended'],
    ]);
    list = updateConditions(list, 'Suspended', 'False', 'TFJobResumed', 'TFJob test-job is resumed.', at(3));
    list = running(list, 4);
    expect(shape(list)).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Suspended', 'False', 'TFJobResumed'],
      ['Running', 'True', 'TFJobRunning'],
    ]);
  });

  it('invariants hold for any sequence of updates', () => {
    const types = ['Created', 'Running', 'Restarting', 'Succeeded', 'Failed', 'Suspended'] as const;
    const update = fc.record({
      type: fc.constantFrom(...types),
      status: fc.constantFrom('True', 'False'),
      reason: fc.constantFrom('A', 'B'),
    });
    fc.assert(
      fc.property(fc.array(update, { maxLength: 25 }), (updates) => {
        let list: readonly JobCondition[] = [];
        let frozen = false;
        updates.forEach((u, i) => {
          const before = list;
          list = setCondition(list, newCondition(u.type, u.status, u.reason, 'm', at(i)));
          if (frozen) expect(list).toBe(before);
          else if (list !== before) expect(list.at(-1)).toMatchObject({ type: u.type, status: u.status, reason: u.reason });
          frozen ||= list.some((c) => c.type === 'Failed' && c.status === 'True');
          // one condition per type; Running and Restarting never together
          expect(new Set(list.map((c) => c.type)).size).toBe(list.length);
          expect(list.some((c) => c.type === 'Running') && list.some((c) => c.type === 'Restarting')).toBe(false);
        });
      }),
    );
  });
});

describe('Created when the stored status lacks it', () => {
  const createdCondition = newCondition('Created', 'True', 'TFJobCreated', 'TFJob test-job is created.', at(0));
  const succeeded = newCondition('Succeeded', 'True', 'TFJobSucceeded', 'done', at(3));

  it('goes to the front, so the State (the last condition) never falls back to Created', () => {
    expect(shape(ensureCreated([succeeded], createdCondition))).toEqual([
      ['Created', 'True', 'TFJobCreated'],
      ['Succeeded', 'True', 'TFJobSucceeded'],
    ]);
    const notTrue = { ...createdCondition, status: 'False' };
    expect(shape(ensureCreated([notTrue, succeeded], createdCondition)).map(([t, st]) => `${t}=${st}`)).toEqual([
      'Created=True',
      'Succeeded=True',
    ]);
  });

  it('is a no-op (the same array) when Created is there and True, wherever it is', () => {
    const list = [succeeded, createdCondition];
    expect(ensureCreated(list, createdCondition)).toBe(list);
    expect(ensureCreated([], createdCondition)).toEqual([createdCondition]);
  });
});
