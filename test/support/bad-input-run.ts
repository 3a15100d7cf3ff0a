// Submits a hostile corpus (hostile-tfjobs.ts) to a real apiserver in batches and classifies each
// input by what happened to it:
// - client-rejected: the strict YAML parser refused it (its lenient reading is still submitted);
// - rejected: refused at admission (the message must name the offending field);
// - failed: accepted, then marked Failed by the operator (with a reason);
// - running / waiting / suspended: accepted and handled by the queue (admitted, or waiting with a
//   reason, or suspended as asked);
// - refused: admitted, but an admission plugin refuses its pods (e.g. a template that sets
//   `priority`): the job's status must name the TFJob field (else it is listed as unexplained);
// - unhandled: accepted but left without any of the above in time (a stall: must not happen).
// Used by the CI test (test/integration/bad-input) and the bigger soak run (test/soak).
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { hostileCorpus, type HostileInput } from './hostile-tfjobs.ts';

export type Outcome = 'rejected' | 'failed' | 'running' | 'waiting' | 'suspended' | 'refused' | 'unhandled';

export interface BadInputResult {
  readonly inputs: number;
  readonly clientRejected: number;
  readonly byOutcome: Readonly<Record<Outcome, number>>;
  /** Outcome counts per mutation family. */
  readonly byFamily: Readonly<Record<string, Partial<Record<Outcome, number>>>>;
  /** Rejections whose message names no field (must be empty). */
  readonly unnamedRejections: readonly string[];
  /** Failed jobs without a reason (must be empty). */
  readonly reasonlessFailures: readonly string[];
  /** Jobs whose pods the API server refuses, with a status that does not name the TFJob field (must be empty). */
  readonly unexplainedRefusals: readonly string[];
  /** Accepted inputs left unhandled (must be empty). */
  readonly unhandled: readonly string[];
  /** Other API answers than 2xx/400/422 on create (e.g. 500), by code. */
  readonly otherCodes: Readonly<Record<string, number>>;
  readonly seconds: number;
}

interface TFJobView {
  metadata?: { name?: string };
  spec?: { runPolicy?: { suspend?: unknown } };
  status?: {
    conditions?: { type: string; status: string; reason?: string }[];
    scheduling?: { queue?: string; reason?: string; message?: string };
  };
}

/**
 * An apiserver validation message names its field: `spec.x: ...`, `metadata.name: ...`, `spec: ...`,
 * or, when the object cannot even be decoded (metadata of the wrong type), the Go struct field:
 * `json: cannot unmarshal string into Go struct field ObjectMeta.annotations of type ...`.
 */
export function namesField(message: string): boolean {
  return /(^|[\s"'([,])(spec|metadata)([.[:]|\s)/.test(message) || /Go struct field \w+\.\w+/.test(message);
}

/** A refusal explained to the user names the TFJob field: `spec.tfReplicaSpecs.Worker.template.spec.priority`. */
export function namesTemplateField(message: string): boolean {
  return /spec\.tfReplicaSpecs\.[^.\s]+\.template\.spec\./.test(message);
}

/** `admitted`: the scheduler admitted it but no pod runs yet; final only once nothing refuses its pods. */
function outcomeOf(job: TFJobView): Outcome | 'admitted' | undefined {
  const conditions = job.status?.conditions ?? [];
  const isTrue = (t: string) => conditions.some((c) => c.type === t && c.status === 'True');
  if (isTrue('Failed')) return 'failed';
  if (job.status?.scheduling?.reason === 'CreateRefused') return 'refused';
  if (isTrue('Running') || isTrue('Succeeded')) return 'running';
  if (job.status?.scheduling?.queue === 'Running') return 'admitted';
  if (isTrue('Suspended')) return 'suspended';
  if (job.status?.scheduling?.queue === 'Waiting' && (job.status.scheduling.reason ?? '') !== '') return 'waiting';
  return undefined;
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

export async function runBadInput(opts: {
  kc: KubeConfig;
  namespace: string;
  pool: string;
  seed: number;
  count: number;
  batch?: number;
  concurrency?: number;
  /** How long an accepted input may take to be handled. */
  handleTimeoutMs?: number;
  /** How long an admitted job must stay free of a create refusal to count as running (10 s). */
  settleMs?: number;
  /** Called after each batch (e.g. to check a control job and the operator). */
  afterBatch?: (done: number) => Promise<void>;
}): Promise<BadInputResult> {
  const started = Date.now();
  const corpus = hostileCorpus({ seed: opts.seed, count: opts.count, pool: opts.pool, prefix: 'hostile' });
  // Raw JSON, as kubectl would send it (the generated client would reshape the body).
  const raw = new KubeClients(opts.kc, { rateLimit: { qps: 0, burst: 1 } });
  const custom = opts.kc.makeApiClient(CustomObjectsApi);
  const collection = `/apis/kubeflow.org/v1/namespaces/${opts.namespace}/tfjobs`;
  const byOutcome: Record<Outcome, number> = { rejected: 0, failed: 0, running: 0, waiting: 0, suspended: 0, refused: 0, unhandled: 0 };
  const byFamily: Record<string, Partial<Record<Outcome, number>>> = {};
  const unnamed: string[] = [];
  const reasonless: string[] = [];
  const unhandled: string[] = [];
  const unexplained: string[] = [];
  const otherCodes: Record<string, number> = {};
  let clientRejected = 0;
  const record = (input: HostileInput, outcome: Outcome) => {
    byOutcome[outcome] += 1;
    for (const f of input.families) {
      const counts = byFamily[f] ?? {};
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      byFamily[f] = counts;
    }
  };

  const size = opts.batch ?? 100;
  for (let from = 0; from < corpus.length; from += size) {
    const batch = corpus.slice(from, from + size);
    const accepted = new Map<string, HostileInput>();
    await pool(batch, opts.concurrency ?? 8, async (input) => {
      if (input.clientError !== undefined) clientRejected += 1;
      if (input.body === undefined) return;
      try {
        const created = await raw.request<{ metadata?: { name?: string } }>('POST', collection, input.body);
        accepted.set(created.metadata?.name ?? '', input);
      } catch (err) {
        const code = (err as { code?: number }).code ?? 0;
        let message = String((err as { body?: unknown }).body ?? err);
        try {
          message = (JSON.parse(message) as { message?: string }).message ?? message;
        } catch {
          // not JSON
        }
        if (code === 422 || code === 400) {
          record(input, 'rejected');
          if (!namesField(message)) unnamed.push(`#${input.id} [${input.families.join(',')}] ${code}: ${message.slice(0, 300)}`);
        } else {
          otherCodes[String(code)] = (otherCodes[String(code)] ?? 0) + 1;
          record(input, 'rejected');
          unnamed.push(`#${input.id} [${input.families.join(',')}] unexpected ${code}: ${message.slice(0, 300)}`);
        }
      }
    });

    // Every accepted input is handled (failed, queued or running) within the timeout.
    const deadline = Date.now() + (opts.handleTimeoutMs ?? 90_000);
    const pending = new Set(accepted.keys());
    // An admitted job whose pods are refused says so a moment later (after the create): wait that long.
    const admittedAt = new Map<string, number>();
    while (pending.size > 0 && Date.now() < deadline) {
      const list = (await custom
        .listNamespacedCustomObject({ group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace: opts.namespace })
        .catch(() => ({ items: [] }))) as { items: TFJobView[] };
      for (const job of list.items) {
        const name = job.metadata?.name ?? '';
        if (!pending.has(name)) continue;
        const seen = outcomeOf(job);
        if (seen === undefined) continue;
        if (seen === 'admitted' && Date.now() - (admittedAt.get(name) ?? Date.now()) < (opts.settleMs ?? 10_000)) {
          if (!admittedAt.has(name)) admittedAt.set(name, Date.now());
          continue;
        }
        const outcome = seen === 'admitted' ? 'running' : seen;
        pending.delete(name);
        if (outcome === 'refused' && !namesTemplateField(job.status?.scheduling?.message ?? ''))
          unexplained.push(`${name} [${accepted.get(name)!.families.join(',')}]: ${(job.status?.scheduling?.message ?? '').slice(0, 300)}`);
        record(accepted.get(name)!, outcome);
        if (outcome === 'failed') {
          const failed = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
          if ((failed?.reason ?? '') === '') reasonless.push(name);
        }
      }
      if (pending.size > 0) await sleep(1_000);
    }
    for (const name of pending) {
      record(accepted.get(name)!, 'unhandled');
      unhandled.push(`${name} [${accepted.get(name)!.families.join(',')}]`);
    }
    // Clear the batch (its pods too, through garbage collection) before the next.
    await pool([...accepted.keys()], 8, async (name) => {
      await custom
        .deleteNamespacedCustomObject({
          group: 'kubeflow.org',
          version: 'v1',
          plural: 'tfjobs',
          namespace: opts.namespace,
          name,
          propagationPolicy: 'Background',
        })
        .catch(() => undefined);
    });
    await opts.afterBatch?.(from + batch.length);
  }
  return {
    inputs: corpus.length,
    clientRejected,
    byOutcome,
    byFamily,
    unnamedRejections: unnamed,
    reasonlessFailures: reasonless,
    unexplainedRefusals: unexplained,
    unhandled,
    otherCodes,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}
