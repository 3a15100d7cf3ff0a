// Builds our TFJob CRD from tf-operator v1.8.1's CRD (the ~500 KB PodTemplateSpec schema is reused,
// never hand-maintained) plus our additions. Pure: text in, text out; hack/gen-crd.ts does the I/O.
//
// Invariant (checked by test/unit/api/crd-superset.test.ts): every object valid under the v1.8.1
// OpenAPI schema and accepted by tf-operator's webhook is valid here, except the rejections listed in
// docs/differences-from-tf-operator.md. So additions are new optional fields, and constraints only
// where tf-operator's webhook rejected the same objects or where we deliberately reject more.
//
// CEL cost: the apiserver estimates each rule's worst case from list/map/string bounds and multiplies
// it by how often the rule's node can repeat. The template schema has no bounds and we may not add
// any there (that would reject objects v1.8.1 accepts), so rules iterating containers sit under
// `tfReplicaSpecs`, whose `maxProperties: 5` follows from the replica-type key rule and keeps the
// multiplier at 5 instead of ~10^6.

import { parse, stringify } from 'yaml';
import { ANNOTATION_CRD_GENERATED_FROM, DEFAULT_CONTAINER_NAME } from '../src/api/v1/constants.ts';
import {
  MAX_DEADLINE_SECONDS,
  MAX_SECONDS_PER_STEP,
  MAX_STEPS_PER_SECOND,
  MAX_TOTAL_STEPS,
  MAX_ABS_TARGET_METRIC,
  MSG_QOE_ON_TARGET_METRIC,
  MSG_QOE_ONE_TARGET,
  MSG_QOE_SOME_TARGET,
  ON_TARGET_METRIC,
  MSG_QOE_TOTAL_STEPS,
  MSG_QOE_TOTAL_STEPS_FORBIDDEN,
  QOE_TARGET_FIELDS,
} from '../src/api/v1/qoe.ts';
import { PROGRESS_PHASES, QOE_CLASSES, QUEUE_STATES } from '../src/api/v1/schema.ts';
import {
  ALLOWED_CLEAN_POD_POLICIES,
  ALLOWED_MANAGED_BY,
  ALLOWED_RESTART_POLICIES,
  ALLOWED_SUCCESS_POLICIES,
  DNS1035_LABEL_ERROR,
  DNS1035_LABEL_MAX_LENGTH,
  MSG_CHIEF_AND_MASTER,
  MSG_CONTAINERS_REQUIRED,
  MSG_DUPLICATE_REPLICA_TYPE,
  MSG_IMAGE_REQUIRED,
  MSG_TENSORFLOW_CONTAINER_REQUIRED,
  MSG_UNKNOWN_REPLICA_TYPE,
} from '../src/api/v1/validation.ts';
import { MAX_ELASTIC_WORKERS } from '../src/api/v1/elastic.ts';
import { REPLICA_TYPES } from '../src/api/v1/replica-types.ts';

type Json = Record<string, unknown>;

export interface CelRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueInvalid' | 'FieldValueDuplicate';
}

/** Where the upstream CRD came from; recorded on the generated CRD. */
export const UPSTREAM_CRD_SOURCE = 'kubeflow/training-operator v1.8.1 (0f8735fa) manifests/base/crds/kubeflow.org_tfjobs.yaml, Apache-2.0';

/** The largest number of `tfReplicaSpecs` keys a valid job can have: the five types, Chief xor Master. */
export const MAX_REPLICA_TYPES = REPLICA_TYPES.length;

const LOWER_TYPES = `[${REPLICA_TYPES.map((t) => `'${t.toLowerCase()}'`).join(', ')}]`;

export const RULE_NAME: CelRule = {
  rule: `!has(self.metadata.name) || (self.metadata.name.size() <= ${DNS1035_LABEL_MAX_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))`,
  fieldPath: '.metadata.name',
  message: `should match: ${DNS1035_LABEL_ERROR} and be at most ${DNS1035_LABEL_MAX_LENGTH} characters`,
};
export const RULE_ELASTIC_NEEDS_WORKER: CelRule = {
  rule: `!has(self.elasticPolicy) || (has(self.tfReplicaSpecs) && self.tfReplicaSpecs.exists(k, k.lowerAscii() == 'worker'))`,
  fieldPath: '.elasticPolicy',
  message: 'requires a Worker entry in spec.tfReplicaSpecs',
};
export const RULE_KNOWN_REPLICA_TYPES: CelRule = {
  rule: `self.all(k, k.lowerAscii() in ${LOWER_TYPES})`,
  // Static: a messageExpression listing the offending keys is estimated at >100x the cost budget,
  // because map keys cannot be given a maxLength.
  message: MSG_UNKNOWN_REPLICA_TYPE,
};
export const RULE_NO_DUPLICATE_REPLICA_TYPES: CelRule = {
  rule: 'self.all(k, self.filter(j, j.lowerAscii() == k.lowerAscii()).size() == 1)',
  message: MSG_DUPLICATE_REPLICA_TYPE,
};
export const RULE_CHIEF_XOR_MASTER: CelRule = {
  rule: `!(self.exists(k, k.lowerAscii() == 'chief') && self.exists(k, k.lowerAscii() == 'master'))`,
  reason: 'FieldValueForbidden',
  message: MSG_CHIEF_AND_MASTER,
};
export const RULE_CONTAINERS_REQUIRED: CelRule = {
  rule: 'has(self.template) && has(self.template.spec) && self.template.spec.containers.size() > 0',
  fieldPath: '.template.spec.containers',
  reason: 'FieldValueRequired',
  message: MSG_CONTAINERS_REQUIRED,
};
export const RULE_TENSORFLOW_CONTAINER: CelRule = {
  rule: `has(self.template) && has(self.template.spec) && self.template.spec.containers.exists(c, c.name == '${DEFAULT_CONTAINER_NAME}')`,
  fieldPath: '.template.spec.containers',
  reason: 'FieldValueRequired',
  message: MSG_TENSORFLOW_CONTAINER_REQUIRED,
};
export const RULE_IMAGE_REQUIRED: CelRule = {
  rule: `has(self.image) && self.image != ''`,
  fieldPath: '.image',
  reason: 'FieldValueRequired',
  message: MSG_IMAGE_REQUIRED,
};
export const RULE_ELASTIC_MIN_LE_MAX: CelRule = {
  rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
  fieldPath: '.maxReplicas',
  message: 'must be greater than or equal to spec.elasticPolicy.minReplicas',
};
export const RULE_MANAGED_BY_IMMUTABLE: CelRule = {
  rule: `(has(self.managedBy) ? self.managedBy : '') == (has(oldSelf.managedBy) ? oldSelf.managedBy : '')`,
  fieldPath: '.managedBy',
  message: 'field is immutable',
};

const QOE_RATE_TARGETS = `[${QOE_TARGET_FIELDS.map((f) => `has(self.${f})`).join(', ')}].filter(x, x).size()`;
export const RULE_QOE_ONE_TARGET: CelRule = { rule: `${QOE_RATE_TARGETS} <= 1`, message: MSG_QOE_ONE_TARGET };
export const RULE_QOE_SOME_TARGET: CelRule = { rule: `${QOE_RATE_TARGETS} == 1 || has(self.targetMetric)`, message: MSG_QOE_SOME_TARGET };
export const RULE_QOE_ON_TARGET_METRIC: CelRule = {
  rule: '!has(self.onTargetMetric) || has(self.targetMetric)',
  fieldPath: '.onTargetMetric',
  reason: 'FieldValueForbidden',
  message: MSG_QOE_ON_TARGET_METRIC,
};
export const RULE_QOE_TOTAL_STEPS: CelRule = {
  rule: '!(has(self.deadline) || has(self.deadlineSeconds)) || has(self.totalSteps)',
  fieldPath: '.totalSteps',
  reason: 'FieldValueRequired',
  message: MSG_QOE_TOTAL_STEPS,
};
export const RULE_QOE_TOTAL_STEPS_ONLY_WITH_DEADLINE: CelRule = {
  rule: '!has(self.totalSteps) || has(self.deadline) || has(self.deadlineSeconds)',
  fieldPath: '.totalSteps',
  reason: 'FieldValueForbidden',
  message: MSG_QOE_TOTAL_STEPS_FORBIDDEN,
};

/**
 * Printer columns: upstream's State and Age, plus our queue view and the job's declared plan (`-o wide`
 * adds the reason, the progress phase and the plan's ETA).
 */
export const PRINTER_COLUMNS: readonly Json[] = [
  {
    name: 'State',
    type: 'string',
    jsonPath: '.status.conditions[-1:].type',
    description: "Type of the last condition (tf-operator's column)",
  },
  {
    name: 'Queue',
    type: 'string',
    jsonPath: '.status.scheduling.queue',
    description: "Waiting, Running or Finished in the operator's queue",
  },
  { name: 'Weight', type: 'string', jsonPath: '.status.scheduling.weight', description: 'Effective scheduling weight' },
  { name: 'Workers', type: 'string', jsonPath: '.status.scheduling.workersSummary', description: 'Workers current/min/max' },
  {
    name: 'Target',
    type: 'string',
    jsonPath: '.status.qoe.class',
    description: 'Ahead, Satisfied, Behind or Unknown against spec.qoe (performance target)',
  },
  {
    name: 'Plan',
    type: 'string',
    jsonPath: '.status.progress.plan',
    description: "How far the job is through its own declared plan (Epoch k/N, totalSteps), e.g. '3/90 epochs (3%)'",
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  {
    name: 'Reason',
    type: 'string',
    jsonPath: '.status.scheduling.reason',
    priority: 1,
    description: 'Why the job waits or was last rescheduled',
  },
  {
    name: 'Progress',
    type: 'string',
    jsonPath: '.status.progress.phase',
    priority: 1,
    description: 'Training progress phase read from the job log (--progress-period)',
  },
  {
    name: 'ETA',
    type: 'string',
    jsonPath: '.status.progress.eta',
    priority: 1,
    description: 'When the declared plan will be done at the step rate measured with the present workers',
  },
];

const int32 = (description: string, minimum?: number): Json => ({
  type: 'integer',
  format: 'int32',
  ...(minimum === undefined ? {} : { minimum }),
  description,
});
const dateTime = (description: string): Json => ({ type: 'string', format: 'date-time', description });

export const ELASTIC_POLICY_SCHEMA: Json = {
  type: 'object',
  description:
    'Elastic bounds of the Worker replica type (tfjob-operator extension). Without it the job has a fixed ' +
    'size. With it, the operator chooses the number of workers within [minReplicas, maxReplicas] and ' +
    'Worker.replicas is only the default of maxReplicas. Every replica gets TF_CONFIG with the full cluster, ' +
    'the worker list holding every slot 0..max-1 (docs/elastic-contract.md).',
  properties: {
    minReplicas: { ...int32('Fewest workers the job runs with; default 1.', 1), maximum: MAX_ELASTIC_WORKERS },
    maxReplicas: int32(
      `Most workers the job runs with; default max(minReplicas, Worker.replicas); at most ${MAX_ELASTIC_WORKERS} are used.`,
      1,
    ),
  },
  'x-kubernetes-validations': [RULE_ELASTIC_MIN_LE_MAX],
};

export const SCHEDULING_STATUS_SCHEMA: Json = {
  type: 'object',
  description: "The operator's queue view of the job (tfjob-operator extension; clients of tf-operator ignore it).",
  properties: {
    queue: { type: 'string', enum: [...QUEUE_STATES], description: 'Waiting, Running or Finished.' },
    weight: { type: 'string', description: 'Effective scheduling weight in (0, 1), as a decimal string.' },
    clusterQueue: { type: 'string', description: 'The ClusterQueue whose quota the job is charged to (queues with quotas; absent: none).' },
    enqueueTime: dateTime('First time the job entered the waiting queue; never reset.'),
    workers: {
      type: 'object',
      description: 'Worker counts: current, and the elastic bounds (min = max for fixed-size jobs).',
      properties: {
        current: int32('Workers the job runs with now.'),
        min: int32('Fewest workers.'),
        max: int32('Most workers.'),
      },
    },
    workersSummary: { type: 'string', description: 'current/min/max, e.g. 2/1/4.' },
    reason: { type: 'string', description: 'Machine-readable reason of the queue state.' },
    message: { type: 'string', description: 'Why the job waits, or what the scheduler last did to it.' },
    starving: { type: 'boolean', description: 'The job waited longer than the starvation limit and was promoted.' },
    preemptions: int32('Workers removed from this job to make room for others.'),
    scaleOuts: int32('Workers added to this job beyond its minimum: at admission into idle capacity, or later by scale-out.'),
    lastScaleTime: dateTime('Last time workers were added or removed.'),
    attainedWorkerSeconds: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      description:
        'Service the job has attained: seconds its running workers held, summed over workers; updated in steps (each time it doubled, and grew by a worker-hour at least).',
    },
  },
};

export const PROGRESS_STATUS_SCHEMA: Json = {
  type: 'object',
  description: "The job's training progress as read from its log (tfjob-operator extension; see docs/progress-protocol.md).",
  properties: {
    phase: {
      type: 'string',
      enum: [...PROGRESS_PHASES],
      description: 'Progressing, Slowing, Converged, or Diverged (a NaN or infinite loss or metric in the log).',
    },
    since: dateTime('When the job entered this phase.'),
    metric: { type: 'string', description: 'The EMA-smoothed metric (what the phase is judged on), as a decimal string.' },
    latest: { type: 'string', description: 'The metric as the last sample in the log had it, as a decimal string.' },
    metricName: { type: 'string', description: 'Name of the metric (or loss) the job reports.' },
    higherIsBetter: { type: 'boolean', description: 'Whether a larger metric is better.' },
    growth: { type: 'string', description: 'Relative improvement per relative progress over the recent window, as a decimal string.' },
    step: { type: 'integer', format: 'int64', minimum: 0, description: 'Global training step of the last sample.' },
    epoch: { type: 'integer', format: 'int64', minimum: 0, description: 'Epoch of the last sample.' },
    plannedEpochs: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      description: 'Epochs the job declared it plans (Epoch k/N, protocol epochs).',
    },
    plannedSteps: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      description: 'Global steps the job plans: spec.qoe.totalSteps, else the protocol totalSteps, else planned epochs x steps per epoch.',
    },
    fractionDone: { type: 'string', description: 'Share of the declared plan done, as a decimal string in [0, 1].' },
    eta: dateTime('When the declared plan will be done at the step rate measured with the present workers.'),
    plan: { type: 'string', description: "The plan column's text, e.g. '3/90 epochs (3%)'." },
    lastUpdate: dateTime('When the last sample was measured.'),
    notTraining: {
      type: 'object',
      description: 'Set while every pod of the job runs but it printed no progress line for longer than --not-training-after.',
      required: ['since', 'reason', 'message'],
      properties: {
        since: dateTime('When the silence began: the later of the last pod becoming Running and the last progress line.'),
        reason: {
          type: 'string',
          description: 'WaitingForWorkers (a style that needs every worker slot, some without a Running pod) or NoProgress.',
        },
        message: { type: 'string', description: 'What is known, in words.' },
      },
    },
  },
};

export const VERTICAL_RESIZE_STATUS_SCHEMA: Json = {
  type: 'object',
  description: "What --vertical-policy did to the job's CPU limits in place (tfjob-operator extension; see docs/scheduling.md).",
  properties: {
    policy: { type: 'string', description: 'The vertical policy: flowcon or dqoes.' },
    lastRound: dateTime('When the policy last looked at the job.'),
    list: { type: 'string', description: "FlowCon's list for the job: New, Watching or Completing." },
    growthEfficiency: { type: 'string', description: 'Relative metric gain per CPU-second over the last interval, as a decimal string.' },
    leftAlone: { type: 'string', description: 'Why the policy leaves the job alone, when it does.' },
    containers: {
      type: 'array',
      maxItems: 256,
      description: 'Containers whose CPU limit the policy set or tried to set, latest state each.',
      items: {
        type: 'object',
        required: ['pod', 'container', 'cpuLimit', 'time', 'state'],
        properties: {
          pod: { type: 'string' },
          container: { type: 'string' },
          cpuLimit: { type: 'string', description: 'The CPU limit asked for (quantity).' },
          previousCpuLimit: { type: 'string', description: 'The CPU limit before.' },
          time: dateTime('When it was asked for.'),
          reason: { type: 'string', description: 'Why, in words.' },
          state: {
            type: 'string',
            enum: ['Requested', 'InProgress', 'Applied', 'Deferred', 'Infeasible', 'Failed'],
            description:
              'Requested (in the pod spec), InProgress, Applied (the kubelet reports it), Deferred or Infeasible (the kubelet), Failed (the API refused).',
          },
          message: { type: 'string', description: "The kubelet's or the API server's message." },
        },
      },
    },
  },
};

export const MIGRATION_STATUS_SCHEMA: Json = {
  type: 'object',
  description: 'Workers --vertical-policy specon moved to another node (tfjob-operator extension; see docs/scheduling.md).',
  properties: {
    migrations: { type: 'integer', format: 'int32', minimum: 0, description: 'Workers moved so far.' },
    last: {
      type: 'object',
      description: 'The last move.',
      required: ['pod', 'from', 'to', 'time'],
      properties: {
        pod: { type: 'string' },
        from: { type: 'string', description: 'The node it left.' },
        to: { type: 'string', description: 'The node it was to be re-created on.' },
        time: dateTime('When the old pod was deleted.'),
        reason: { type: 'string', description: 'Why, in words.' },
      },
    },
  },
};

/** A number in (0, max], as OpenAPI bounds: the apiserver names the field in its error. */
const positive = (description: string, maximum: number): Json => ({
  type: 'number',
  exclusiveMinimum: true,
  minimum: 0,
  maximum,
  description,
});

export const QOE_SPEC_SCHEMA: Json = {
  type: 'object',
  description:
    'Performance target (tfjob-operator extension; DQoES): at most one of stepsPerSecond, secondsPerStep, deadline, ' +
    'deadlineSeconds, and/or targetMetric. The operator measures the step rate from the progress lines the job prints (docs/progress-protocol.md) ' +
    'and moves workers from jobs ahead of their targets to jobs behind theirs. Pruned by the upstream CRD.',
  properties: {
    stepsPerSecond: positive('Global training steps per second the job should run at.', MAX_STEPS_PER_SECOND),
    secondsPerStep: positive('Seconds per global step the job should run at (the same target, inverted).', MAX_SECONDS_PER_STEP),
    deadline: { type: 'string', format: 'date-time', description: 'Time the job should be done by (RFC 3339).' },
    deadlineSeconds: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_DEADLINE_SECONDS,
      description: 'Seconds after creation the job should be done by.',
    },
    totalSteps: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_TOTAL_STEPS,
      description: 'The global step training ends at; required with a deadline, which becomes a required rate from the steps still to go.',
    },
    tolerance: {
      type: 'number',
      exclusiveMinimum: true,
      minimum: 0,
      exclusiveMaximum: true,
      maximum: 1,
      description: 'α: within ±α of the required rate counts as satisfied; default 0.1.',
    },
    adjustStep: positive("β: the largest share of the ahead jobs' workers moved per pass; default 0.1.", 1),
    targetMetric: {
      type: 'number',
      minimum: -MAX_ABS_TARGET_METRIC,
      maximum: MAX_ABS_TARGET_METRIC,
      description:
        "The value of the metric the job reports (its loss when it reports no metric), in that metric's direction, at which training is good enough.",
    },
    onTargetMetric: {
      type: 'string',
      enum: [...ON_TARGET_METRIC],
      description: 'Once targetMetric is reached: Shrink (default) scales the job down to its minimum workers; Stop ends it as Succeeded.',
    },
  },
  'x-kubernetes-validations': [
    RULE_QOE_ONE_TARGET,
    RULE_QOE_SOME_TARGET,
    RULE_QOE_TOTAL_STEPS,
    RULE_QOE_TOTAL_STEPS_ONLY_WITH_DEADLINE,
    RULE_QOE_ON_TARGET_METRIC,
  ],
};

export const QOE_STATUS_SCHEMA: Json = {
  type: 'object',
  description: 'The job against spec.qoe, from the last scheduling pass (tfjob-operator extension).',
  properties: {
    class: {
      type: 'string',
      enum: [...QOE_CLASSES],
      description: 'Ahead, Satisfied, Behind, or Unknown while the rate is being measured.',
    },
    since: dateTime('When the job entered this class.'),
    target: { type: 'string', description: 'The target in words.' },
    requiredStepsPerSecond: { type: 'string', description: 'Steps per second the target needs now, as a decimal string.' },
    measuredStepsPerSecond: { type: 'string', description: 'Measured steps per second with the present workers, as a decimal string.' },
    reachable: {
      type: 'boolean',
      description: 'False when the target cannot be met (deadline passed, too slow even at the maximum workers).',
    },
    targetMetricReached: { type: 'boolean', description: 'With targetMetric: whether the metric the job reports has reached it.' },
    message: { type: 'string', description: 'Why, in words.' },
    conditions: {
      type: 'array',
      description:
        'TargetReachable: True, or False with reason DeadlinePassed or TooSlowAtMaxWorkers. Kept here, not in status.conditions, whose last entry clients read as the job state.',
      items: {
        type: 'object',
        required: ['type', 'status'],
        properties: {
          type: { type: 'string' },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          reason: { type: 'string' },
          message: { type: 'string' },
          lastUpdateTime: { type: 'string', format: 'date-time' },
          lastTransitionTime: { type: 'string', format: 'date-time' },
        },
      },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
  },
};

export const POD_RECREATIONS_SCHEMA: Json = {
  type: 'object',
  description:
    'Failed pods the operator deleted and recreated, per replica type (tfjob-operator extension). ' +
    'They count toward runPolicy.backoffLimit, which tf-operator does not do for ExitCode restarts.',
  additionalProperties: { type: 'integer', format: 'int32' },
};

export const GIVEN_UP_WORKER_SLOTS_SCHEMA: Json = {
  type: 'array',
  description:
    'Worker slots (indices) of an elastic job given up because their pod failed under restartPolicy Never (tfjob-operator extension). ' +
    'The failed pod is kept for its logs; the job runs with that many fewer workers while it exists (deleting it gives the slot back).',
  items: { type: 'integer', format: 'int32' },
};

function child(node: Json, ...path: string[]): Json {
  let current = node;
  for (const key of path) {
    const next = current[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new Error(`upstream CRD has no object at ${path.join('.')} (stopped at ${key})`);
    }
    current = next as Json;
  }
  return current;
}

function addRules(node: Json, ...rules: CelRule[]): void {
  const existing = Array.isArray(node['x-kubernetes-validations']) ? (node['x-kubernetes-validations'] as unknown[]) : [];
  node['x-kubernetes-validations'] = [...existing, ...rules];
}

function restrict(node: Json, values: readonly string[], note: string): void {
  node.enum = [...values];
  node.description = `${typeof node.description === 'string' ? node.description : ''}\n${note}`.trim();
}

/** Applies our additions to a parsed upstream CRD object (mutates and returns it). */
export function extendCrd(crd: Json): Json {
  const metadata = child(crd, 'metadata');
  metadata.annotations = { [ANNOTATION_CRD_GENERATED_FROM]: UPSTREAM_CRD_SOURCE };

  const versions = child(crd, 'spec').versions;
  if (!Array.isArray(versions) || versions.length !== 1) throw new Error('expected exactly one version in the upstream CRD');
  const version = versions[0] as Json;
  version.additionalPrinterColumns = PRINTER_COLUMNS.map((c) => ({ ...c }));

  const root = child(version, 'schema', 'openAPIV3Schema');
  // tf-operator's webhook rejected a job without spec (tfReplicaSpecs is nil then).
  root.required = ['spec'];
  // Declared so that the name rule below may point its error at metadata.name (only name and
  // generateName may be declared under metadata; no constraints, they would duplicate the rule).
  root.properties = { ...child(root, 'properties'), metadata: { type: 'object', properties: { name: { type: 'string' } } } };
  addRules(root, RULE_NAME);

  const spec = child(root, 'properties', 'spec');
  addRules(spec, RULE_ELASTIC_NEEDS_WORKER);
  const specProps = child(spec, 'properties');
  specProps.elasticPolicy = ELASTIC_POLICY_SCHEMA;
  specProps.qoe = QOE_SPEC_SCHEMA;
  restrict(child(specProps, 'successPolicy'), ALLOWED_SUCCESS_POLICIES, 'One of "" (default rules) or AllWorkers.');

  const runPolicy = child(specProps, 'runPolicy');
  const runPolicyProps = child(runPolicy, 'properties');
  restrict(child(runPolicyProps, 'cleanPodPolicy'), ALLOWED_CLEAN_POD_POLICIES, 'One of All, Running, None ("" means All).');
  runPolicyProps.managedBy = {
    type: 'string',
    enum: [...ALLOWED_MANAGED_BY],
    description:
      'Controller that reconciles the job (tf-operator v1.9 field): kubeflow.org/training-operator (this operator, ' +
      'also when unset) or kueue.x-k8s.io/multikueue (left alone). Immutable.',
  };
  addRules(runPolicy, RULE_MANAGED_BY_IMMUTABLE);

  const replicaSpecs = child(specProps, 'tfReplicaSpecs');
  replicaSpecs.maxProperties = MAX_REPLICA_TYPES;
  // A job with no replica type has nothing to run (v1.8.1 accepted it; it then waited forever).
  replicaSpecs.minProperties = 1;
  addRules(replicaSpecs, RULE_KNOWN_REPLICA_TYPES, RULE_NO_DUPLICATE_REPLICA_TYPES, RULE_CHIEF_XOR_MASTER);
  const replicaSpec = child(replicaSpecs, 'additionalProperties');
  addRules(replicaSpec, RULE_CONTAINERS_REQUIRED, RULE_TENSORFLOW_CONTAINER);
  const replicaProps = child(replicaSpec, 'properties');
  child(replicaProps, 'replicas').minimum = 0;
  restrict(child(replicaProps, 'restartPolicy'), ALLOWED_RESTART_POLICIES, '"" means Never.');
  addRules(child(replicaProps, 'template', 'properties', 'spec', 'properties', 'containers', 'items'), RULE_IMAGE_REQUIRED);

  const statusProps = child(root, 'properties', 'status', 'properties');
  statusProps.scheduling = SCHEDULING_STATUS_SCHEMA;
  statusProps.progress = PROGRESS_STATUS_SCHEMA;
  statusProps.qoe = QOE_STATUS_SCHEMA;
  statusProps.verticalResize = VERTICAL_RESIZE_STATUS_SCHEMA;
  statusProps.migration = MIGRATION_STATUS_SCHEMA;
  statusProps.podRecreations = POD_RECREATIONS_SCHEMA;
  statusProps.givenUpWorkerSlots = GIVEN_UP_WORKER_SLOTS_SCHEMA;
  return crd;
}

export const GENERATED_HEADER =
  "# Generated by `npm run gen:crd` (hack/gen-crd.ts) from tf-operator v1.8.1's CRD\n" +
  '# (test/fixtures/kubeflow.org_tfjobs.v1.8.1.yaml, Apache License 2.0, see test/fixtures/NOTICE.md)\n' +
  '# plus the additions in hack/crd-generate.ts. Do not edit by hand.\n' +
  "# Larger than kubectl's 256 KiB last-applied annotation: install with `kubectl apply --server-side`.\n";

export function generateCrd(upstreamYaml: string): string {
  const crd = parse(upstreamYaml) as unknown;
  if (typeof crd !== 'object' || crd === null || Array.isArray(crd)) throw new Error('upstream CRD is not a YAML object');
  return GENERATED_HEADER + '---\n' + stringify(extendCrd(crd as Json), { lineWidth: 0 });
}
