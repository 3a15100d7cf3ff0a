// `tfjob-operator what-if`: what one scheduling pass of a policy would do on the live cluster now,
// without doing it. It reads the cluster once (TFJobs, their pods, nodes, every pod using capacity,
// PriorityClasses, queues), builds the same snapshot the operator builds, runs the same core, and
// prints the plan: admissions, scale-ins, scale-outs, and why each waiting job waits. Read-only.
//
//   tfjob-operator what-if [--policy ours|kod2] [--kubeconfig F] [--namespace a,b] [other run flags]
import { CoreV1Api, CustomObjectsApi, SchedulingV1Api, type V1Pod } from '@kubernetes/client-node';
import { CLUSTER_QUEUES, LOCAL_QUEUES, QUEUE_GROUP, QUEUE_VERSION, type ClusterQueue, type LocalQueue } from '../api/queues/types.ts';
import { GROUP, PLURAL, VERSION } from '../api/v1/constants.ts';
import { toTFJobEntry } from '../api/v1/parse.ts';
import { ConfigError, helpText, loadConfig, schedulerConfigFrom, type OperatorConfig } from '../operator/config.ts';
import { controllingJobKey, OWNED_SELECTOR } from '../operator/informers.ts';
import { loadKubeConfig } from '../operator/manager.ts';
import { reduceForeignPod } from '../operator/pod-reduction.ts';
import { decide } from '../operator/scheduling/pass/decide.ts';
import { DecisionBook } from '../operator/scheduling/decisions/book.ts';
import { snapshotOptionsOf } from '../operator/scheduling/pass/options.ts';
import { queueCrdsServed } from '../operator/scheduling/queues/caches.ts';
import { queueDirectory } from '../operator/scheduling/queues/directory.ts';
import { JobShapes } from '../operator/scheduling/pass/job-shape.ts';
import { takeSnapshot } from '../operator/scheduling/pass/snapshot.ts';
import { isPlacingPolicy, type Plan, type PlacingPolicyName } from '../scheduler/index.ts';
import { KubeClients } from '../runtime/kube-client.ts';
import { objectKey } from '../runtime/store.ts';

const ACTIVE_PODS = 'status.phase!=Succeeded,status.phase!=Failed';

/** The plan as text, one decision per line. */
export function describePlan(policy: string, plan: Plan): string {
  const lines = [`what-if: one ${policy} pass on the cluster as it is now (nothing is changed)`];
  const replicas = (rs: readonly { type: string; index: number; node?: string }[]) =>
    rs.map((r) => `${r.type}-${r.index}@${r.node ?? '?'}`).join(' ');
  for (const s of plan.suspend) lines.push(`  suspend  ${s.job} (for ${s.forJob})`);
  for (const s of plan.scaleIn) {
    const why =
      s.reclaimedBy !== undefined
        ? `queue ${s.reclaimedBy} reclaims for ${s.forJob}`
        : s.relocated === true
          ? `moves next to its PS for ${s.forJob}`
          : s.toMeetTarget === true
            ? `for ${s.forJob}'s target`
            : `for ${s.forJob}`;
    lines.push(`  scale in ${s.job} -${s.remove.length} (${why}): ${replicas(s.remove)}`);
  }
  for (const a of plan.admit) lines.push(`  admit    ${a.job}: ${replicas(a.replicas)}`);
  for (const s of plan.scaleOut) lines.push(`  scale out ${s.job} +${s.add.length}: ${replicas(s.add)}`);
  if (plan.suspend.length + plan.scaleIn.length + plan.admit.length + plan.scaleOut.length === 0) lines.push('  (no change)');
  for (const w of plan.waiting) {
    const where = w.queue === undefined ? '' : ` [queue ${w.queue.name} #${w.queue.position}]`;
    lines.push(`  waiting  ${w.job}${where} (weight ${w.weight.toFixed(3)}): ${w.reason}`);
  }
  return lines.join('\n');
}

async function whatIf(config: OperatorConfig, policy: PlacingPolicyName): Promise<Plan> {
  const clients = new KubeClients(loadKubeConfig(config.kubeconfig), { rateLimit: { qps: config.kubeApiQps, burst: config.kubeApiBurst } });
  const core = clients.api(CoreV1Api);
  const custom = clients.api(CustomObjectsApi);
  const namespaces = config.namespace;
  const inScope = (ns: string | undefined) => namespaces.length === 0 || namespaces.includes(ns ?? '');
  const tfjobList = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: unknown[] };
  const tfjobs = tfjobList.items.map(toTFJobEntry).filter((j) => inScope(j.metadata?.namespace));
  const owned = (await core.listPodForAllNamespaces({ labelSelector: OWNED_SELECTOR })).items;
  const podsByJob = new Map<string, V1Pod[]>();
  for (const p of owned) {
    const key = controllingJobKey(p);
    if (key !== undefined) podsByJob.set(key, [...(podsByJob.get(key) ?? []), p]);
  }
  const allPods = (await core.listPodForAllNamespaces({ fieldSelector: ACTIVE_PODS })).items.map(reduceForeignPod);
  const nodes = (await core.listNode()).items;
  const classes = new Map((await clients.api(SchedulingV1Api).listPriorityClass()).items.map((c) => [c.metadata?.name ?? '', c.value]));
  let queues = queueDirectory(undefined);
  if (await queueCrdsServed(clients)) {
    const list = async <T>(plural: string) =>
      ((await custom.listClusterCustomObject({ group: QUEUE_GROUP, version: QUEUE_VERSION, plural })) as { items: T[] }).items;
    const cqs = await list<ClusterQueue>(CLUSTER_QUEUES);
    const lqs = new Map((await list<LocalQueue>(LOCAL_QUEUES)).map((lq) => [objectKey(lq), lq]));
    // Namespace labels for namespaceSelectors; a user who may not list namespaces sees those queues refuse.
    const labels = await core.listNamespace().then(
      (l) => new Map(l.items.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}])),
      () => undefined,
    );
    queues = queueDirectory({
      clusterQueues: () => cqs,
      localQueue: (ns, name) => lqs.get(`${ns}/${name}`),
      ...(labels === undefined ? {} : { namespaceLabels: (ns: string) => labels.get(ns) }),
    });
  }
  const now = Date.now();
  const { snapshot, facts } = takeSnapshot(
    {
      tfjobs,
      podsOf: (key) => podsByJob.get(key) ?? [],
      allPods,
      nodes,
      priorityClassValue: (name) => classes.get(name),
      nodeLost: () => undefined,
      progressOf: () => undefined,
      stepRateOf: () => undefined,
      podCreatesInFlight: () => false,
      queues,
    },
    new DecisionBook(),
    new JobShapes(),
    snapshotOptionsOf(config),
    now,
  );
  return decide(policy, snapshot, facts, schedulerConfigFrom(config)).plan;
}

export async function main(argv: string[]): Promise<number> {
  let loaded;
  try {
    loaded = loadConfig({ argv, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tfjob-operator what-if: ${err.message}`);
      return 2;
    }
    throw err;
  }
  if (loaded.help) {
    console.log(
      `usage: tfjob-operator what-if [--policy ours|kod2] [run options]\n\nPrints what one pass would do now; changes nothing.\n\n${helpText()}`,
    );
    return 0;
  }
  const policy = loaded.config.policy;
  if (!isPlacingPolicy(policy)) {
    console.error(`tfjob-operator what-if: --policy ${policy} does not place pods; use ours or kod2`);
    return 2;
  }
  console.log(describePlan(policy, await whatIf(loaded.config, policy)));
  return 0;
}
