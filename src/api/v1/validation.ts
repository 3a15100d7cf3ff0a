// Every rule a TFJob must satisfy before we run it: tf-operator's admission webhook checks (same
// messages) plus ours. On a cluster with our CRD the apiserver enforces the same rules at admission
// (OpenAPI + CEL, see hack/gen-crd.ts); the reconciler runs this anyway so that jobs stored under the
// upstream CRD (no webhook, no CEL) get a Failed condition that names the field instead of a bad run.

import { ANNOTATION_SUSPENDABLE, DEFAULT_CONTAINER_NAME } from './constants.ts';
import { resolveElastic } from './elastic.ts';
import { validateQoe } from './qoe.ts';
import type { FieldError } from './field-error.ts';
import { OMIT_VALUE, forbidden, invalid, notSupported, required } from './field-error.ts';
import { CLEAN_POD_POLICIES, RESTART_POLICIES, SUCCESS_POLICIES } from './policies.ts';
import { parseQuantity } from './quantity.ts';
import { REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, canonicalReplicaType } from './replica-types.ts';
import type { TFJob } from './schema.ts';

export const DNS1035_LABEL_MAX_LENGTH = 63;
const DNS1035_LABEL_REGEXP = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** apimachinery's `IsDNS1035Label` texts, joined the way tf-operator's webhook joins them. */
export const DNS1035_LABEL_ERROR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
export const DNS1035_MAX_LENGTH_ERROR = `must be no more than ${DNS1035_LABEL_MAX_LENGTH} characters`;

/** Upstream values plus "" (tf-operator treats an explicit "" as unset or, for cleanPodPolicy, as All). */
export const ALLOWED_RESTART_POLICIES: readonly string[] = ['', ...RESTART_POLICIES];
export const ALLOWED_CLEAN_POD_POLICIES: readonly string[] = ['', ...CLEAN_POD_POLICIES];
export const ALLOWED_SUCCESS_POLICIES: readonly string[] = SUCCESS_POLICIES;
/** tf-operator v1.9's `runPolicy.managedBy` values. */
export const MANAGED_BY_TRAINING_OPERATOR = 'kubeflow.org/training-operator';
export const MANAGED_BY_MULTIKUEUE = 'kueue.x-k8s.io/multikueue';
export const ALLOWED_MANAGED_BY: readonly string[] = [MANAGED_BY_TRAINING_OPERATOR, MANAGED_BY_MULTIKUEUE];

export const MSG_UNKNOWN_REPLICA_TYPE = 'keys must be PS, Worker, Chief, Master or Evaluator (in any letter case)';
export const MSG_DUPLICATE_REPLICA_TYPE = 'must not name the same replica type twice in different letter case';
export const MSG_CHIEF_AND_MASTER = 'must not have more than 1 Chief or Master role';
export const MSG_CONTAINERS_REQUIRED = 'must be specified';
export const MSG_IMAGE_REQUIRED = 'must be required';
export const MSG_TENSORFLOW_CONTAINER_REQUIRED = `must have at least one container with name ${DEFAULT_CONTAINER_NAME}`;
export const MSG_TF_REPLICA_SPECS_REQUIRED = 'must be required';

export const MSG_RESOURCE_NAME =
  'must be a standard resource (cpu, memory, ephemeral-storage, hugepages-<size>) or a qualified name such as example.com/gpu';
export const MSG_RESOURCE_QUANTITY = 'must be a finite, non-negative quantity such as 500m, 2 or 4Gi';

const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A container resource name the API server accepts (apimachinery's qualified-name rules). */
export function isValidResourceName(name: string): boolean {
  if (STANDARD_RESOURCES.has(name) || /^hugepages-[0-9]+([KMGTPE]i?)?$/.test(name)) return true;
  const slash = name.indexOf('/');
  if (slash <= 0) return false;
  const prefix = name.slice(0, slash);
  const local = name.slice(slash + 1);
  return prefix.length <= 253 && DNS1123_SUBDOMAIN.test(prefix) && local.length <= 63 && QUALIFIED_NAME_PART.test(local);
}

/**
 * Requests and limits of every container: a name no node can have ("foo bar") or an amount nothing
 * can have ("1e400") would make the job wait forever for a node that fits it.
 */
function validateResources(containersPath: string, containers: readonly unknown[]): FieldError[] {
  const errors: FieldError[] = [];
  containers.forEach((container, i) => {
    const resources = (container as { resources?: Record<string, unknown> } | undefined)?.resources;
    for (const kind of ['requests', 'limits'] as const) {
      const list = resources?.[kind];
      if (typeof list !== 'object' || list === null) continue;
      for (const [name, quantity] of Object.entries(list as Record<string, unknown>)) {
        const path = `${containersPath}[${i}].resources.${kind}[${name}]`;
        if (!isValidResourceName(name)) errors.push(invalid(path, name, MSG_RESOURCE_NAME));
        const amount = typeof quantity === 'string' || typeof quantity === 'number' ? parseQuantity(quantity) : undefined;
        if (amount === undefined || amount < 0) errors.push(invalid(path, quantity, MSG_RESOURCE_QUANTITY));
      }
    }
  });
  return errors;
}

export function validateJobName(name: string): FieldError[] {
  const problems: string[] = [];
  if (name.length > DNS1035_LABEL_MAX_LENGTH) problems.push(DNS1035_MAX_LENGTH_ERROR);
  if (!DNS1035_LABEL_REGEXP.test(name)) problems.push(DNS1035_LABEL_ERROR);
  return problems.length === 0 ? [] : [invalid('metadata.name', name, `should match: ${problems.join(',')}`)];
}

function validateReplicaSpecs(job: TFJob): FieldError[] {
  const specs = job.spec?.tfReplicaSpecs;
  if (!specs) return [required('spec.tfReplicaSpecs', MSG_TF_REPLICA_SPECS_REQUIRED)];
  // The CRD's minProperties, with the apiserver's message (a job stored under the upstream CRD).
  if (Object.keys(specs).length === 0) {
    return [invalid('spec.tfReplicaSpecs', 0, 'spec.tfReplicaSpecs in body should have at least 1 properties')];
  }
  const errors: FieldError[] = [];
  const keys = Object.keys(specs).sort();

  if (keys.some((k) => canonicalReplicaType(k) === undefined)) {
    errors.push(invalid('spec.tfReplicaSpecs', OMIT_VALUE, MSG_UNKNOWN_REPLICA_TYPE));
  }
  const seen = new Set<string>();
  for (const key of keys) {
    const lower = key.toLowerCase();
    if (seen.has(lower)) {
      errors.push(invalid('spec.tfReplicaSpecs', OMIT_VALUE, MSG_DUPLICATE_REPLICA_TYPE));
      break;
    }
    seen.add(lower);
  }
  const types = new Set(keys.map((k) => canonicalReplicaType(k)));
  if (types.has(REPLICA_TYPE_CHIEF) && types.has(REPLICA_TYPE_MASTER)) {
    errors.push(forbidden('spec.tfReplicaSpecs', MSG_CHIEF_AND_MASTER));
  }

  for (const key of keys) {
    const spec = specs[key];
    const path = `spec.tfReplicaSpecs[${key}]`;
    const containersPath = `${path}.template.spec.containers`;
    const containers = spec?.template?.spec?.containers;
    if (!Array.isArray(containers) || containers.length === 0) {
      errors.push(required(containersPath, MSG_CONTAINERS_REQUIRED));
    }
    const list = Array.isArray(containers) ? containers : [];
    list.forEach((container, i) => {
      if (!container.image) errors.push(required(`${containersPath}[${i}].image`, MSG_IMAGE_REQUIRED));
    });
    if (!list.some((c) => c.name === DEFAULT_CONTAINER_NAME)) {
      errors.push(required(containersPath, MSG_TENSORFLOW_CONTAINER_REQUIRED));
    }
    errors.push(...validateResources(containersPath, list));
    const initContainers = spec?.template?.spec?.initContainers;
    if (Array.isArray(initContainers)) errors.push(...validateResources(`${path}.template.spec.initContainers`, initContainers));
    // The CRD checks these two with OpenAPI (minimum, enum), whose messages use dotted map paths.
    const openApiPath = `spec.tfReplicaSpecs.${key}`;
    if (spec?.replicas !== undefined && spec.replicas < 0) {
      errors.push(
        invalid(`${openApiPath}.replicas`, spec.replicas, `${openApiPath}.replicas in body should be greater than or equal to 0`),
      );
    }
    if (spec?.restartPolicy !== undefined && !ALLOWED_RESTART_POLICIES.includes(spec.restartPolicy)) {
      errors.push(notSupported(`${openApiPath}.restartPolicy`, spec.restartPolicy, ALLOWED_RESTART_POLICIES));
    }
  }
  return errors;
}

function validatePolicies(job: TFJob): FieldError[] {
  const errors: FieldError[] = [];
  const runPolicy = job.spec?.runPolicy;
  if (runPolicy?.cleanPodPolicy !== undefined && !ALLOWED_CLEAN_POD_POLICIES.includes(runPolicy.cleanPodPolicy)) {
    errors.push(notSupported('spec.runPolicy.cleanPodPolicy', runPolicy.cleanPodPolicy, ALLOWED_CLEAN_POD_POLICIES));
  }
  if (runPolicy?.managedBy !== undefined && !ALLOWED_MANAGED_BY.includes(runPolicy.managedBy)) {
    errors.push(notSupported('spec.runPolicy.managedBy', runPolicy.managedBy, ALLOWED_MANAGED_BY));
  }
  const successPolicy = job.spec?.successPolicy;
  if (successPolicy !== undefined && !ALLOWED_SUCCESS_POLICIES.includes(successPolicy)) {
    errors.push(notSupported('spec.successPolicy', successPolicy, ALLOWED_SUCCESS_POLICIES));
  }
  return errors;
}

/** All problems of a parsed TFJob, webhook checks first; empty when the job may run. */
export function validateTFJob(job: TFJob): FieldError[] {
  return [
    ...validateJobName(job.metadata.name),
    ...validateReplicaSpecs(job),
    ...validatePolicies(job),
    ...resolveElastic(job).errors,
    ...validateSuspendable(job),
    ...validateQoe(job),
  ];
}

/** The suspendable annotation is a promise that the job checkpoints: only "true" or "false". */
function validateSuspendable(job: TFJob): FieldError[] {
  const value = job.metadata.annotations?.[ANNOTATION_SUSPENDABLE];
  if (value === undefined || value === 'true' || value === 'false') return [];
  return [invalid(`metadata.annotations[${ANNOTATION_SUSPENDABLE}]`, value, 'must be "true" or "false"')];
}
