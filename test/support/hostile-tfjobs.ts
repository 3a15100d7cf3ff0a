// A seeded corpus of malformed and hostile TFJobs (fast-check): a plausible job (elastic or not, PS
// or not, a pool's selector and toleration) with one to three mutations from the families below,
// plus raw YAML documents with duplicate keys and unicode, parsed the way a client would (strict:
// rejected before sending; lenient: the last duplicate wins, and that is what gets sent).
import fc from 'fast-check';
import { parse } from 'yaml';
import { LABEL_NODE_POOL } from '../../src/api/v1/constants.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, Json>;

export interface HostileInput {
  readonly id: number;
  /** Mutation families applied, e.g. ['huge-count', 'unicode']. */
  readonly families: readonly string[];
  /** The body to send, or undefined when a strict client refuses to parse it. */
  readonly body: Obj | undefined;
  /** Raw YAML inputs: the strict parser's error, if it refused. */
  readonly clientError?: string;
}

interface Mutation {
  readonly family: string;
  apply(job: Obj): void;
}

function obj(v: Json | undefined): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
}

function specs(job: Obj): Obj {
  return obj(obj(job.spec).tfReplicaSpecs);
}

function firstType(job: Obj): string {
  return Object.keys(specs(job))[0] ?? 'Worker';
}

function podSpec(job: Obj, type = firstType(job)): Obj {
  return obj(obj(obj(specs(job)[type]).template).spec);
}

function container(job: Obj, type = firstType(job)): Obj {
  const cs = podSpec(job, type).containers;
  return Array.isArray(cs) ? obj(cs[0]) : {};
}

/** Sets `value` at a dotted path, creating objects on the way (arrays index by number). */
function setPath(root: Obj, path: readonly string[], value: Json | undefined): void {
  let cur: Json = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const holder = cur as Obj;
    if (typeof holder[key] !== 'object' || holder[key] === null) holder[key] = {};
    cur = holder[key];
  }
  const last = path.at(-1)!;
  if (value === undefined) Reflect.deleteProperty(cur, last);
  else (cur as Obj)[last] = value;
}

const PATHS: readonly (readonly string[])[] = [
  ['spec'],
  ['spec', 'tfReplicaSpecs'],
  ['spec', 'tfReplicaSpecs', 'Worker'],
  ['spec', 'tfReplicaSpecs', 'Worker', 'replicas'],
  ['spec', 'tfReplicaSpecs', 'Worker', 'template'],
  ['spec', 'tfReplicaSpecs', 'Worker', 'template', 'spec'],
  ['spec', 'tfReplicaSpecs', 'Worker', 'template', 'spec', 'containers'],
  ['spec', 'tfReplicaSpecs', 'Worker', 'restartPolicy'],
  ['spec', 'runPolicy'],
  ['spec', 'runPolicy', 'cleanPodPolicy'],
  ['spec', 'runPolicy', 'backoffLimit'],
  ['spec', 'runPolicy', 'suspend'],
  ['spec', 'runPolicy', 'schedulingPolicy'],
  ['spec', 'elasticPolicy'],
  ['spec', 'elasticPolicy', 'minReplicas'],
  ['spec', 'successPolicy'],
  ['metadata', 'labels'],
  ['metadata', 'annotations'],
];

const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant<Json>({ nested: { deeper: [1, 'two', null] } }),
);

const hugeNumber = fc.constantFrom(1000, 100_000, 2 ** 31, 2 ** 31 - 1, 2 ** 53, 2 ** 63, 1e308, 1.5);
const negativeNumber = fc.constantFrom(-1, -1000, -(2 ** 31), -(2 ** 63));
const quantity = fc.constantFrom(
  '1e100',
  '-1',
  'abc',
  '999999999Ei',
  '0.0000001m',
  '1Pi',
  '1.5',
  '',
  '   ',
  '1 cpu',
  '0x10',
  '1e-9',
  '9223372036854775807',
  '10Gi',
  '100000',
);
const resourceName = fc.constantFrom(
  'cpu',
  'memory',
  'nvidia.com/gpu',
  'example.com/unknown',
  'ephemeral-storage',
  'pods',
  'a/b/c',
  'CPU',
  'hugepages-2Mi',
);
const unicode = fc.constantFrom('tëst', 'джоб', '作业', 'job-🚀', 'ǅ', '\u200b', 'a\u0000b', 'RTL\u202eevil', 'e\u0301');
const dnsName = (n: number) => fc.constant('a'.repeat(n));
const typeKey = fc.constantFrom('Workerz', 'Foo', 'ps ', 'WORKER', 'worker', 'Chief', 'Master', 'Evaluator', 'PS', '', 'Worker.0', '🚀');

const common: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ path: fc.constantFrom(...PATHS), value: wrongValue }).map(({ path, value }): Mutation => ({
    family: 'wrong-type',
    apply: (j) => {
      setPath(j, path, value);
    },
  })),
  fc.record({ n: hugeNumber, elastic: fc.boolean() }).map(({ n, elastic }): Mutation => ({
    family: 'huge-count',
    apply: (j) => {
      setPath(j, ['spec', 'tfReplicaSpecs', firstType(j), 'replicas'], n);
      if (elastic) setPath(j, ['spec', 'elasticPolicy'], { minReplicas: 1, maxReplicas: n });
    },
  })),
  negativeNumber.map((n): Mutation => ({
    family: 'negative-count',
    apply: (j) => {
      setPath(j, ['spec', 'tfReplicaSpecs', firstType(j), 'replicas'], n);
    },
  })),
  fc
    .record({ min: fc.integer({ min: -5, max: 50 }), max: fc.integer({ min: -5, max: 50 }) })
    .filter(({ min, max }) => min > max || min <= 0 || max <= 0)
    .map(({ min, max }): Mutation => ({
      family: 'min-gt-max',
      apply: (j) => {
        setPath(j, ['spec', 'elasticPolicy'], { minReplicas: min, maxReplicas: max });
      },
    })),
  fc.constantFrom('delete', 'empty', 'no-image', 'no-name', 'no-tensorflow', 'null').map((how): Mutation => ({
    family: 'missing-containers',
    apply: (j) => {
      const spec = podSpec(j);
      if (how === 'delete') delete spec.containers;
      else if (how === 'empty') spec.containers = [];
      else if (how === 'null') spec.containers = null;
      else if (how === 'no-image') delete container(j).image;
      else if (how === 'no-name') delete container(j).name;
      else container(j).name = 'not-tensorflow';
    },
  })),
  typeKey.map((key): Mutation => ({
    family: 'unknown-replica-type',
    apply: (j) => {
      specs(j)[key] = { replicas: 1, template: { spec: { containers: [{ name: 'tensorflow', image: 'example.invalid/tf:2.15' }] } } };
    },
  })),
  fc.record({ name: resourceName, q: quantity, where: fc.constantFrom('requests', 'limits') }).map(({ name, q, where }): Mutation => ({
    family: 'absurd-quantity',
    apply: (j) => {
      setPath(container(j), ['resources', where, name], q);
    },
  })),
  fc.boolean().map((elastic): Mutation => ({
    family: '1000-workers',
    apply: (j) => {
      setPath(j, ['spec', 'tfReplicaSpecs', 'Worker', 'replicas'], 1000);
      if (elastic) setPath(j, ['spec', 'elasticPolicy'], { minReplicas: 1000, maxReplicas: 1000 });
    },
  })),
  fc
    .oneof(
      dnsName(63),
      dnsName(64),
      dnsName(253),
      fc.constant('UPPER'),
      fc.constant('1starts-with-digit'),
      fc.constant('has.dot'),
      fc.constant('-dash'),
      unicode,
    )
    .map((name): Mutation => ({
      family: 'name-limits',
      apply: (j) => {
        setPath(j, ['metadata', 'name'], name);
      },
    })),
  fc
    .record({ text: unicode, where: fc.constantFrom('label', 'annotation', 'env', 'container-name', 'priority-class', 'image') })
    .map(({ text, where }): Mutation => ({
      family: 'unicode',
      apply: (j) => {
        if (where === 'label') setPath(j, ['metadata', 'labels', 'k'], text);
        else if (where === 'annotation') setPath(j, ['metadata', 'annotations', 'example.com/k'], text);
        else if (where === 'env') container(j).env = [{ name: 'U', value: text }];
        else if (where === 'container-name') container(j).name = text;
        else if (where === 'priority-class') setPath(j, ['spec', 'runPolicy', 'schedulingPolicy', 'priorityClass'], text);
        else container(j).image = text;
      },
    })),
  fc
    .constantFrom(
      ['spec', 'runPolicy', 'cleanPodPolicy', 'Sometimes'],
      ['spec', 'runPolicy', 'backoffLimit', -1],
      ['spec', 'runPolicy', 'activeDeadlineSeconds', 0],
      ['spec', 'runPolicy', 'activeDeadlineSeconds', -5],
      ['spec', 'runPolicy', 'ttlSecondsAfterFinished', 2 ** 40],
      ['spec', 'runPolicy', 'managedBy', 'someone-else'],
      ['spec', 'successPolicy', 'AllWorkers-ish'],
      ['metadata', 'annotations', 'tfjob-operator.kubeflow.org/min-workers', 'abc'],
      ['metadata', 'annotations', 'tfjob-operator.kubeflow.org/max-workers', '-3'],
      ['metadata', 'annotations', 'tfjob-operator.kubeflow.org/scaling-curve', '1,NaN,,-2,1e400'],
    )
    .map(([a, b, c, v]): Mutation => ({
      family: 'bad-policy',
      apply: (j) => {
        setPath(j, [a, b, c], v);
      },
    })),
  fc.constantFrom('Never', 'OnFailure', 'Always', 'ExitCode', 'Sometimes', '').map((p): Mutation => ({
    family: 'restart-policy',
    apply: (j) => {
      setPath(j, ['spec', 'tfReplicaSpecs', firstType(j), 'restartPolicy'], p);
      setPath(podSpec(j), ['restartPolicy'], p);
    },
  })),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), wrongValue, { maxKeys: 4 }).map((extra): Mutation => ({
    family: 'unknown-fields',
    apply: (j) => {
      Object.assign(obj(j.spec), extra);
      Object.assign(podSpec(j), { bogusField: extra });
    },
  })),

  // Template fields the CRD accepts (as tf-operator's does) but the API server's admission plugins
  // refuse on every pod: Priority (a priority of its own, a class that does not exist), ServiceAccount
  // and RuntimeClass (objects that do not exist).
  fc
    .record({
      field: fc.constantFrom('priority', 'priorityClassName', 'serviceAccountName', 'runtimeClassName'),
      n: fc.integer({ min: 1, max: 1_000_000_000 }),
    })
    .map(({ field, n }): Mutation => ({
      family: 'admission-refused',
      apply: (j) => {
        for (const type of Object.keys(specs(j))) podSpec(j, type)[field] = field === 'priority' ? n : `missing-${n}`;
      },
    })),
  fc.constantFrom('empty-spec', 'empty-replica-specs', 'no-template', 'no-metadata-name').map((how): Mutation => ({
    family: 'structure',
    apply: (j) => {
      if (how === 'empty-spec') j.spec = {};
      else if (how === 'empty-replica-specs') setPath(j, ['spec', 'tfReplicaSpecs'], {});
      else if (how === 'no-template') delete obj(specs(j)[firstType(j)]).template;
      else setPath(j, ['metadata', 'name'], undefined);
    },
  })),
);

// Rarer (and the only big bodies): around and over the 256 KiB limit on an object's annotations.
const oversized: fc.Arbitrary<Mutation> = fc.integer({ min: 200, max: 300 }).map((kib): Mutation => ({
  family: 'oversized',
  apply: (j) => {
    setPath(j, ['metadata', 'annotations', 'example.com/blob'], 'x'.repeat(kib * 1024));
  },
}));

const mutations: fc.Arbitrary<Mutation> = fc.oneof({ arbitrary: common, weight: 30 }, { arbitrary: oversized, weight: 1 });

/** A plausible, valid TFJob on the pool (what the mutations start from). */
function baseJob(pool: string, name: string, shape: { ps: boolean; workers: number; elastic: boolean; cpu: string }): Obj {
  const template = (): Obj => ({
    spec: {
      containers: [{ name: 'tensorflow', image: 'example.invalid/tf:2.15', resources: { requests: { cpu: shape.cpu, memory: '256Mi' } } }],
      nodeSelector: { [LABEL_NODE_POOL]: pool },
      tolerations: [{ key: LABEL_NODE_POOL, operator: 'Equal', value: pool, effect: 'NoSchedule' }],
    },
  });
  const tfReplicaSpecs: Obj = { Worker: { replicas: shape.workers, restartPolicy: 'OnFailure', template: template() } };
  if (shape.ps) tfReplicaSpecs.PS = { replicas: 1, template: template() };
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name },
    spec: {
      tfReplicaSpecs,
      runPolicy: { cleanPodPolicy: 'All' },
      ...(shape.elastic ? { elasticPolicy: { minReplicas: 1, maxReplicas: shape.workers } } : {}),
    },
  };
}

const shapeArb = fc.record({
  ps: fc.boolean(),
  workers: fc.integer({ min: 1, max: 3 }),
  elastic: fc.boolean(),
  cpu: fc.constantFrom('100m', '250m', '500m'),
});

/** Duplicate keys and unicode in raw YAML, as a user might type it. */
function hostileYaml(pool: string, name: string, variant: number): string {
  const dup = [`metadata:\n  name: ${name}\n  name: ${name}-dup\n`, `metadata:\n  name: ${name}\n`][variant % 2]!;
  const worker = variant % 3 === 0 ? '    Worker:\n      replicas: 1\n      replicas: 3\n' : '    Worker:\n      replicas: 2\n';
  const env =
    variant % 4 === 0
      ? '            env:\n            - name: GREETING\n              value: "héllo 🌍 \\u202e"\n            - name: GREETING\n              value: again\n'
      : '';
  return [
    'apiVersion: kubeflow.org/v1',
    'kind: TFJob',
    dup.trimEnd(),
    'spec:',
    '  runPolicy: {cleanPodPolicy: All}',
    '  tfReplicaSpecs:',
    worker.trimEnd(),
    '      template:',
    '        spec:',
    `          nodeSelector: {${LABEL_NODE_POOL}: ${pool}}`,
    `          tolerations: [{key: ${LABEL_NODE_POOL}, operator: Equal, value: ${pool}, effect: NoSchedule}]`,
    '          containers:',
    '          - name: tensorflow',
    '            image: example.invalid/tf:2.15',
    '            resources: {requests: {cpu: 100m, memory: 256Mi}}',
    ...(env === '' ? [] : [env.trimEnd()]),
    variant % 5 === 0 ? '    Worker:\n      replicas: 7' : '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/**
 * `count` hostile inputs for `seed`, deterministic. About one in twenty is raw YAML; the rest are
 * mutated objects. Names are unique per input (`<prefix>-<id>`) unless a mutation changes the name.
 */
export function hostileCorpus(opts: { seed: number; count: number; pool: string; prefix: string }): HostileInput[] {
  const arb = fc.record({
    shape: shapeArb,
    mutations: fc.array(mutations, { minLength: 1, maxLength: 3 }),
    yaml: fc.integer({ min: 0, max: 19 }),
    variant: fc.nat(60),
  });
  const samples = fc.sample(arb, { seed: opts.seed, numRuns: opts.count });
  return samples.map((s, id) => {
    const name = `${opts.prefix}-${id}`;
    if (s.yaml === 0) {
      const text = hostileYaml(opts.pool, name, s.variant);
      let clientError: string | undefined;
      try {
        parse(text);
      } catch (err) {
        clientError = (err as Error).message.split('\n')[0];
      }
      // A lenient client (uniqueKeys off) sends what the last duplicate says.
      const body = parse(text, { uniqueKeys: false }) as Obj;
      return {
        id,
        families: ['raw-yaml', ...(clientError === undefined ? [] : ['duplicate-keys'])],
        body,
        ...(clientError === undefined ? {} : { clientError }),
      };
    }
    const job = baseJob(opts.pool, name, s.shape);
    for (const m of s.mutations) m.apply(job);
    // A valid name at the length limit must still be unique within the corpus.
    const meta = obj(job.metadata);
    if (typeof meta.name === 'string' && meta.name.length === 63 && /^a+$/.test(meta.name)) meta.name = `${name}-`.padEnd(63, 'a');
    return { id, families: [...new Set(s.mutations.map((m) => m.family))], body: job };
  });
}
