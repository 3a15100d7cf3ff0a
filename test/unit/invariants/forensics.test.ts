import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditDeleterLookup, auditTrail } from '../../support/forensics.ts';

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
});
