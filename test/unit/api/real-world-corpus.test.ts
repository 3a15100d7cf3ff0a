// TFJobs written by other people (test/fixtures/tfjobs/real-world: Kubeflow examples across releases,
// Katib, Kueue, YuniKorn): each is admitted by our CRD as by tf-operator v1.8.1's, and our reconciler
// (no scheduler input = tf-operator's behaviour) creates the pods and services tf-operator would. The
// expectation is written from tf-operator v1.8.1's rules (pkg/controller.v1/tensorflow and common:
// GenGeneralName, GenLabels, IsMasterRole, SetClusterSpec/genClusterSpec, isDistributed,
// SetRestartPolicy, CreateNewService; defaults from pkg/apis/kubeflow.org/v1/tensorflow_defaults.go),
// not from our code.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseTFJob, toTFJobEntry } from '../../../src/api/v1/parse.ts';
import { formatFieldError } from '../../../src/api/v1/field-error.ts';
import { validateTFJob } from '../../../src/api/v1/validation.ts';
import type { Pod, Service } from '../../../src/api/v1/k8s-types.ts';
import { reconcileTFJob } from '../../../src/reconciler/tfjob/reconcile.ts';
import { checkOpenApi } from './helpers/openapi-check.ts';
import { OUR_CRD_PATH, REPO, UPSTREAM_CRD_PATH, crdSchema, readText, type Json } from './helpers/fixtures.ts';

const DIR = join(REPO, 'test/fixtures/tfjobs/real-world');
const LICENCES = new Set(['Apache-2.0', 'MIT', 'BSD-2-Clause', 'BSD-3-Clause']);
const upstream = crdSchema(UPSTREAM_CRD_PATH);
const ours = crdSchema(OUR_CRD_PATH);

interface Corpus {
  readonly file: string;
  readonly text: string;
  readonly object: Json;
}

const corpus: Corpus[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => {
    const text = readText(join(DIR, file));
    return { file, text, object: parse(text) as Json };
  });

function ourErrors(object: Json): string[] {
  const errors = checkOpenApi(ours, object);
  const parsed = parseTFJob(object);
  if (!parsed.ok) return [...errors, parsed.message];
  return [...errors, ...validateTFJob(parsed.job).map(formatFieldError)];
}

// ---- tf-operator v1.8.1's pods and services for a job, restated ----

interface Container {
  name: string;
  ports?: { name?: string; containerPort: number }[];
}
interface ReplicaSpec {
  replicas?: number;
  restartPolicy?: string;
  template: { metadata?: { labels?: Record<string, string> }; spec: { containers: Container[]; schedulerName?: string } };
}

interface ExpectedReplica {
  readonly labels: Record<string, string>;
  readonly restartPolicy: string;
  readonly tfConfig: string | undefined;
  readonly schedulerName: string | undefined;
  readonly ports: Record<string, number>;
}

const replicasOf = (spec: ReplicaSpec) => spec.replicas ?? 1;

/** Defaulting adds `tfjob-port: 2222` to the tensorflow container when it has no port of that name. */
function tensorflowPorts(spec: ReplicaSpec): Record<string, number> {
  const tensorflow = spec.template.spec.containers.find((c) => c.name === 'tensorflow');
  const ports = Object.fromEntries((tensorflow?.ports ?? []).map((p) => [p.name ?? '', p.containerPort]));
  return 'tfjob-port' in ports ? ports : { ...ports, 'tfjob-port': 2222 };
}

function clusterSpec(name: string, namespace: string, specs: Record<string, ReplicaSpec>): Record<string, string[]> {
  const cluster: Record<string, string[]> = {};
  for (const type of Object.keys(specs).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) {
    const spec = specs[type]!;
    const rt = type.toLowerCase();
    const port = tensorflowPorts(spec)['tfjob-port'];
    cluster[rt] = Array.from({ length: replicasOf(spec) }, (_, i) => `${name}-${rt}-${i}.${namespace}.svc:${port}`);
  }
  return cluster;
}

function tfOperatorReplicas(job: Json, namespace: string): Map<string, ExpectedReplica> {
  const name = (job.metadata as { name: string }).name;
  const specs = (job.spec as { tfReplicaSpecs: Record<string, ReplicaSpec> }).tfReplicaSpecs;
  const distributed = Object.values(specs).reduce((n, s) => n + replicasOf(s), 0) !== 1;
  const hasChiefOrMaster = 'Chief' in specs || 'Master' in specs;
  const cluster = clusterSpec(name, namespace, specs);
  const out = new Map<string, ExpectedReplica>();
  for (const [type, spec] of Object.entries(specs)) {
    const rt = type.toLowerCase();
    for (let i = 0; i < replicasOf(spec); i++) {
      const master = hasChiefOrMaster ? type === 'Chief' || type === 'Master' : type === 'Worker' && i === 0;
      const restart = spec.restartPolicy === undefined || spec.restartPolicy === '' ? 'Never' : spec.restartPolicy;
      out.set(`${name}-${rt}-${i}`, {
        labels: {
          ...(spec.template.metadata?.labels ?? {}),
          'training.kubeflow.org/operator-name': 'tfjob-controller',
          'training.kubeflow.org/job-name': name,
          'training.kubeflow.org/replica-type': rt,
          'training.kubeflow.org/replica-index': String(i),
          ...(master ? { 'training.kubeflow.org/job-role': 'master' } : {}),
        },
        restartPolicy: restart === 'ExitCode' ? 'Never' : restart,
        tfConfig: distributed ? JSON.stringify({ cluster, task: { type: rt, index: i }, environment: 'cloud' }) : undefined,
        schedulerName: spec.template.spec.schedulerName,
        ports: tensorflowPorts(spec),
      });
    }
  }
  return out;
}

// ---- ours ----

/** Without `placeAll`: tf-operator's mode. With it: our scheduler admitted the job and placed every pod. */
function ourFirstPass(job: Json, namespace: string, placeAll?: readonly string[]): { pods: Pod[]; services: Service[] } {
  const metadata = { ...(job.metadata as Json), namespace, uid: '6a1f0c1e-0000-4000-8000-000000000001' };
  const placements = Object.fromEntries((placeAll ?? []).map((pod) => [pod, { nodeName: 'node-1', placedBy: 'ours' }]));
  const scheduling = placeAll ? { scheduling: { admitted: true, placements, requirePlacement: true } } : {};
  const now = new Date('2025-01-01T00:00:00Z');
  const plan = reconcileTFJob({ job: toTFJobEntry({ ...job, metadata }), pods: [], services: [], now, ...scheduling });
  return {
    pods: plan.actions.flatMap((a) => (a.kind === 'createPod' ? [a.pod] : [])),
    services: plan.actions.flatMap((a) => (a.kind === 'createService' ? [a.service] : [])),
  };
}

const tensorflowEnv = (pod: Pod, key: string) =>
  pod.spec?.containers.find((c) => c.name === 'tensorflow')?.env?.find((e) => e.name === key)?.value;

/**
 * The node a placed pod is bound to: spec.nodeName, or for a pod kube-scheduler must bind (a
 * PersistentVolumeClaim, affinity, ...: differences doc, "Who binds a pod") its required node affinity.
 */
function boundTo(pod: Pod): string | undefined {
  if (pod.spec?.nodeName !== undefined) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}

const namespaceOf = (job: Json) => (job.metadata as { namespace?: string }).namespace ?? 'default';

describe('real-world TFJob corpus', () => {
  it('has at least 12 manifests from several projects', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(12);
    const projects = new Set(corpus.map((c) => /github\.com\/([^/]+\/[^/]+)\//.exec(c.text)?.[1]));
    expect(projects.size).toBeGreaterThanOrEqual(4);
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s names its source and a permissive licence', (_f, c) => {
    expect(c.text).toMatch(/^# source: https:\/\/github\.com\/\S+\/blob\/[0-9a-f]{40}\/\S+/m);
    const licence = /^# licence: (\S+)$/m.exec(c.text)?.[1] ?? '';
    expect(LICENCES.has(licence), licence).toBe(true);
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s: accepted by the v1.8.1 CRD and by ours', (_f, c) => {
    expect(checkOpenApi(upstream, c.object)).toEqual([]);
    expect(ourErrors(c.object)).toEqual([]);
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s: our first pass creates the pods tf-operator v1.8.1 would', (_f, c) => {
    const namespace = namespaceOf(c.object);
    const expected = tfOperatorReplicas(c.object, namespace);
    const { pods } = ourFirstPass(c.object, namespace);
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([...expected.keys()].sort());
    for (const pod of pods) {
      const want = expected.get(pod.metadata?.name ?? '')!;
      expect(pod.metadata?.labels, pod.metadata?.name).toEqual(want.labels);
      expect(pod.spec?.restartPolicy, pod.metadata?.name).toBe(want.restartPolicy);
      expect(tensorflowEnv(pod, 'TF_CONFIG'), pod.metadata?.name).toBe(want.tfConfig);
      expect(pod.spec?.schedulerName, pod.metadata?.name).toBe(want.schedulerName);
    }
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s: placed by our scheduler, the same pods, bound to the node chosen', (_f, c) => {
    const namespace = namespaceOf(c.object);
    const expected = tfOperatorReplicas(c.object, namespace);
    const { pods } = ourFirstPass(c.object, namespace, [...expected.keys()]);
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([...expected.keys()].sort());
    for (const pod of pods) {
      const want = expected.get(pod.metadata?.name ?? '')!;
      expect(pod.metadata?.labels, pod.metadata?.name).toEqual(want.labels);
      expect(pod.spec?.restartPolicy, pod.metadata?.name).toBe(want.restartPolicy);
      expect(tensorflowEnv(pod, 'TF_CONFIG'), pod.metadata?.name).toBe(want.tfConfig);
      expect(boundTo(pod), pod.metadata?.name).toBe('node-1');
    }
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s: and the headless services tf-operator v1.8.1 would', (_f, c) => {
    const namespace = namespaceOf(c.object);
    const expected = tfOperatorReplicas(c.object, namespace);
    const { services } = ourFirstPass(c.object, namespace);
    expect(services.map((s) => s.metadata?.name).sort()).toEqual([...expected.keys()].sort());
    for (const service of services) {
      const want = expected.get(service.metadata?.name ?? '')!;
      const { 'training.kubeflow.org/job-role': _role, ...selector } = want.labels;
      const operatorLabels = Object.fromEntries(Object.entries(selector).filter(([k]) => k.startsWith('training.kubeflow.org/')));
      expect(service.spec?.clusterIP).toBe('None');
      expect(service.spec?.selector).toEqual(operatorLabels);
      expect(Object.fromEntries((service.spec?.ports ?? []).map((p) => [p.name, p.port]))).toEqual(want.ports);
    }
  });
});
