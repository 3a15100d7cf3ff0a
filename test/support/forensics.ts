// When the invariant monitor sees an object vanish that nobody was allowed to delete, the report
// says who did it: the API server's audit entries for that object (user, user agent, verb, code)
// and the lines of every operator process that name it. A violation in CI is then diagnosable from
// its message alone.
import { existsSync, readFileSync } from 'node:fs';
import type { DeleterLookup, MonitorReport } from './invariants.ts';
import type { OperatorChild } from './operator-child.ts';

interface AuditEvent {
  readonly verb?: string;
  readonly stageTimestamp?: string;
  readonly requestReceivedTimestamp?: string;
  readonly user?: { readonly username?: string };
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly name?: string };
  readonly responseStatus?: { readonly code?: number };
}

function auditEvents(auditLog: string, resource: string, namespace: string, name: string): AuditEvent[] {
  if (!existsSync(auditLog)) return [];
  const out: AuditEvent[] = [];
  for (const line of readFileSync(auditLog, 'utf8').split('\n')) {
    if (!line.includes(name)) continue;
    let e: AuditEvent;
    try {
      e = JSON.parse(line) as AuditEvent;
    } catch {
      continue;
    }
    const ref = e.objectRef;
    if (ref?.resource === resource && ref.namespace === namespace && ref.name === name) out.push(e);
  }
  return out;
}

/**
 * The audit log's entries for one object, oldest first, one line each; a request answered 100 ms or
 * more after it was received also says when it was received (an operator's write that the API server
 * committed after the process was killed).
 */
export function auditTrail(auditLog: string, resource: string, namespace: string, name: string): string[] {
  return auditEvents(auditLog, resource, namespace, name).map((e) => {
    const received = e.requestReceivedTimestamp === undefined ? Number.NaN : new Date(e.requestReceivedTimestamp).getTime();
    const answered = e.stageTimestamp === undefined ? Number.NaN : new Date(e.stageTimestamp).getTime();
    const slow = answered - received >= 100 ? ` (received ${e.requestReceivedTimestamp ?? '?'})` : '';
    return `${e.stageTimestamp ?? '?'} ${e.verb ?? '?'} ${e.responseStatus?.code ?? '?'} by ${e.user?.username ?? '?'} (${e.userAgent ?? '?'})${slow}`;
  });
}

/**
 * The user whose successful delete of the object is closest to when its deletion was seen (within
 * 30 s before to 2 s after: the watch event and the audit entry are written concurrently).
 */
export function auditDeleterLookup(auditLog: string, namespace: string): DeleterLookup {
  return (kind, name, seenAt) => {
    let best: { user: string | undefined; distance: number } | undefined;
    for (const e of auditEvents(auditLog, `${kind}s`, namespace, name)) {
      if (e.verb !== 'delete' || e.responseStatus?.code !== 200 || e.stageTimestamp === undefined) continue;
      const offset = new Date(e.stageTimestamp).getTime() - seenAt;
      if (offset < -30_000 || offset > 2_000) continue;
      if (best === undefined || Math.abs(offset) < best.distance) best = { user: e.user?.username, distance: Math.abs(offset) };
    }
    return best?.user;
  };
}

/** Where the forensics come from: the audit log, the test's namespace and the operator processes. */
interface ForensicsSources {
  readonly auditLog?: string;
  readonly namespace: string;
  readonly operators: readonly OperatorChild[];
}

/**
 * The violations, each unexpected deletion followed by its audit trail and the operators' lines about
 * it, each over-committed node by its pods' audit trails and the operators' lines about the node and
 * its pods (with every operator's start and kill).
 */
export function withForensics(violations: MonitorReport['violations'], opts: ForensicsSources): MonitorReport['violations'] {
  return violations.map((v) => {
    if (v.kind === 'overcommitted-node') return overcommitForensics(v, opts);
    if (v.kind === 'stuck-removal') return stuckRemovalForensics(v, opts);
    const m = /^(pod|service) (\S+) deleted/.exec(v.message);
    if (m === null) return v;
    const [, kind, name] = m as unknown as [string, string, string];
    const audit = opts.auditLog === undefined ? [] : auditTrail(opts.auditLog, `${kind}s`, opts.namespace, name);
    const logs = opts.operators.flatMap((o) =>
      o.logs.filter((l) => l.includes(`"${opts.namespace}/${name}"`) || l.includes(`"${name}"`)).map((l) => `${o.name}: ${l}`),
    );
    return {
      ...v,
      message: `${v.message}\n  audit:\n    ${audit.join('\n    ') || '(none)'}\n  operator logs:\n    ${logs.slice(-20).join('\n    ') || '(none)'}`,
    };
  });
}

/** Lines that tell an operator process's life: when it started, synced, took the lead, stopped. */
const LIFECYCLE = ['Starting the TFJob operator', 'Caches synced', 'Pods listed again', 'Shutting down', 'Stopped'];

/** A removal never completed: the pod's audit trail, and the operators' lines about it with their starts and kills. */
function stuckRemovalForensics(v: MonitorReport['violations'][number], opts: ForensicsSources): MonitorReport['violations'][number] {
  const name = /^pod (\S+) was marked/.exec(v.message)?.[1];
  if (name === undefined) return v;
  const audit = opts.auditLog === undefined ? [] : auditTrail(opts.auditLog, 'pods', opts.namespace, name);
  const logs = opts.operators.flatMap((o) => {
    const lines = o.logs.filter((l) => l.includes(`${name}"`) || LIFECYCLE.some((x) => l.includes(x))).map((l) => `${o.name}: ${l}`);
    return o.exit === undefined ? lines : [...lines, `${o.name}: exited ${JSON.stringify(o.exit)}`];
  });
  return {
    ...v,
    message: `${v.message}\n  audit:\n    ${audit.join('\n    ') || '(none)'}\n  operator logs:\n    ${logs.slice(-60).join('\n    ') || '(none)'}`,
  };
}

function overcommitForensics(v: MonitorReport['violations'][number], opts: ForensicsSources): MonitorReport['violations'][number] {
  const m = /^node (\S+) over-committed: .*? \((.*)\)$/.exec(v.message);
  if (m === null) return v;
  const [, node, list] = m as unknown as [string, string, string];
  const pods = [...list.matchAll(/(?:^| )([^ @]+)@/g)].map((x) => x[1]!);
  const audit = pods.flatMap((name) =>
    opts.auditLog === undefined ? [] : auditTrail(opts.auditLog, 'pods', opts.namespace, name).map((l) => `${name}: ${l}`),
  );
  const logs = opts.operators.flatMap((o) => {
    const lines = o.logs
      .filter((l) => l.includes(`"${node}"`) || pods.some((p) => l.includes(`${p}"`)) || LIFECYCLE.some((x) => l.includes(x)))
      .map((l) => `${o.name}: ${l}`);
    return o.exit === undefined ? lines : [...lines, `${o.name}: exited ${JSON.stringify(o.exit)}`];
  });
  return {
    ...v,
    message: `${v.message}\n  audit:\n    ${audit.join('\n    ') || '(none)'}\n  operator logs:\n    ${logs.slice(-150).join('\n    ') || '(none)'}`,
  };
}
