import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditDeleterLookup, auditTrail, withForensics } from '../../support/forensics.ts';
import type { OperatorChild } from '../../support/operator-child.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'forensics-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function entry(at: string, verb: string, code: number, user: string, name: string, namespace = 'ns'): string {
  return JSON.stringify({
    verb,
    stageTimestamp: at,
    user: { username: user },
    userAgent: `${user}-agent`,
    objectRef: { resource: 'pods', namespace, name },
    responseStatus: { code },
  });
}

describe('audit forensics', () => {
  const file = path.join(dir, 'audit.log');
  writeFileSync(
    file,
    [
      entry('2026-01-01T00:00:00.000000Z', 'patch', 200, 'admin', 'p'),
      entry('2026-01-01T00:00:00.100000Z', 'delete', 200, 'admin', 'p'),
      entry('2026-01-01T00:00:01.000000Z', 'delete', 200, 'kwok-controller', 'p'),
      entry('2026-01-01T00:00:05.000000Z', 'delete', 409, 'admin', 'p'),
      entry('2026-01-01T00:00:05.000000Z', 'delete', 200, 'admin', 'p', 'other-ns'),
      entry('2026-01-01T00:00:05.000000Z', 'delete', 200, 'admin', 'p-2'),
      'not json',
    ].join('\n'),
  );

  it("lists one object's entries, oldest first, with user and user agent", () => {
    expect(auditTrail(file, 'pods', 'ns', 'p')).toEqual([
      '2026-01-01T00:00:00.000000Z patch 200 by admin (admin-agent)',
      '2026-01-01T00:00:00.100000Z delete 200 by admin (admin-agent)',
      '2026-01-01T00:00:01.000000Z delete 200 by kwok-controller (kwok-controller-agent)',
      '2026-01-01T00:00:05.000000Z delete 409 by admin (admin-agent)',
    ]);
    expect(auditTrail(path.join(dir, 'missing.log'), 'pods', 'ns', 'p')).toEqual([]);
  });

  it('names the user of the successful delete closest to when the deletion was seen', () => {
    const lookup = auditDeleterLookup(file, 'ns');
    const t = (iso: string) => new Date(iso).getTime();
    expect(lookup('pod', 'p', t('2026-01-01T00:00:01.050Z'))).toBe('kwok-controller');
    expect(lookup('pod', 'p', t('2026-01-01T00:00:00.150Z'))).toBe('admin');
    // The 409 at 00:05 deleted nothing; nothing else within 30 s before or 2 s after.
    expect(lookup('pod', 'p', t('2026-01-01T00:01:00.000Z'))).toBeUndefined();
    expect(lookup('pod', 'p-2', t('2026-01-01T00:00:05.010Z'))).toBe('admin');
  });

  it("explains an over-committed node by its pods' audit trails and the operators' lines about them", () => {
    const audited = path.join(dir, 'audit-overcommit.log');
    writeFileSync(
      audited,
      [
        JSON.stringify({
          verb: 'create',
          requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
          stageTimestamp: '2026-01-01T00:00:02.500000Z',
          user: { username: 'op' },
          userAgent: 'tfjob-operator/kill-1',
          objectRef: { resource: 'pods', namespace: 'ns', name: 'job-1-worker-0' },
          responseStatus: { code: 201 },
        }),
        entry('2026-01-01T00:00:03.000000Z', 'delete', 200, 'op', 'job-2-ps-0'),
      ].join('\n'),
    );
    const operator = {
      name: 'kill-1',
      exit: { code: null, signal: 'SIGKILL', at: '2026-01-01T00:00:01.000Z' },
      logs: [
        '{"msg":"Starting the TFJob operator"}',
        '{"pod":"ns/job-1-worker-0","node":"n-1","msg":"Created pod"}',
        '{"pod":"ns/job-1-worker-0","node":"n-2","msg":"Created pod"}',
        '{"pod":"ns/job-10-worker-0","msg":"Deleted pod"}',
        '{"node":"n-1","counted":[],"msg":"Placed pods on node"}',
      ],
    } as unknown as OperatorChild;
    const [v] = withForensics(
      [
        {
          kind: 'overcommitted-node',
          message:
            'node n-1 over-committed: cpu 7000 > 6000 (job-1-worker-0@5[Pending 00:00:02] job-2-ps-0@3[Running 00:00:00](terminating)(removal preemption))',
        },
      ],
      { auditLog: audited, namespace: 'ns', operators: [operator] },
    );
    const text = v!.message;
    expect(text).toContain(
      'job-1-worker-0: 2026-01-01T00:00:02.500000Z create 201 by op (tfjob-operator/kill-1) (received 2026-01-01T00:00:00.000000Z)',
    );
    expect(text).toContain('job-2-ps-0: 2026-01-01T00:00:03.000000Z delete 200 by op (op-agent)');
    expect(text).toContain('kill-1: {"msg":"Starting the TFJob operator"}');
    expect(text).toContain('"node":"n-1","msg":"Created pod"');
    expect(text).toContain('kill-1: {"pod":"ns/job-1-worker-0","node":"n-2","msg":"Created pod"}');
    expect(text).toContain('Placed pods on node');
    expect(text).not.toContain('job-10-worker-0');
    expect(text).toContain('kill-1: exited {"code":null,"signal":"SIGKILL","at":"2026-01-01T00:00:01.000Z"}');
  });
});

describe('stuck-removal forensics', () => {
  it("adds the pod's audit trail and the operators' lines about it, with their starts and kills", () => {
    const audited = path.join(dir, 'audit-stuck.log');
    writeFileSync(audited, [entry('2026-01-01T00:00:01.000000Z', 'patch', 200, 'op', 'job-3-worker-1')].join('\n'));
    const operator = {
      name: 'kill-2',
      exit: { code: null, signal: 'SIGKILL', at: '2026-01-01T00:00:01.500Z' },
      logs: [
        '{"msg":"Starting the TFJob operator"}',
        '{"pod":"ns/job-3-worker-1","removal":"scale-in","msg":"Removed worker"}',
        '{"pod":"ns/job-3-worker-10","msg":"Deleted pod"}',
      ],
    } as unknown as OperatorChild;
    const [v] = withForensics(
      [{ kind: 'stuck-removal', message: 'pod job-3-worker-1 was marked for removal but is still not being deleted (removal=scale-in)' }],
      { auditLog: audited, namespace: 'ns', operators: [operator] },
    );
    const text = v!.message;
    expect(text).toContain('2026-01-01T00:00:01.000000Z patch 200 by op (op-agent)');
    expect(text).toContain('kill-2: {"msg":"Starting the TFJob operator"}');
    expect(text).toContain('kill-2: {"pod":"ns/job-3-worker-1","removal":"scale-in","msg":"Removed worker"}');
    expect(text).toContain('kill-2: exited {"code":null,"signal":"SIGKILL","at":"2026-01-01T00:00:01.500Z"}');
    expect(text).not.toContain('job-3-worker-10');
  });
});
