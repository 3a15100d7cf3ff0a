// Elastic worker bounds. A job is elastic when it has `spec.elasticPolicy` or one of our worker-bound
// annotations (the annotations exist for clusters still running the upstream CRD, which prunes
// `spec.elasticPolicy`). Per bound, the spec field wins over the annotation. Only `Worker` is elastic.

import {
  ANNOTATION_MAX_WORKERS,
  ANNOTATION_MIN_WORKERS,
  ANNOTATION_TRAINING_STYLE,
  TRAINING_STYLES,
  TRAINING_STYLES_NEEDING_ALL_WORKERS,
} from './constants.ts';
import type { FieldError } from './field-error.ts';
import { OMIT_VALUE, invalid, required } from './field-error.ts';
import { REPLICA_TYPE_WORKER, canonicalReplicaType } from './replica-types.ts';
import type { TFJob } from './schema.ts';

export interface ElasticBounds {
  readonly min: number;
  readonly max: number;
}

export type ElasticResolution =
  | { readonly elastic: false; readonly errors: readonly FieldError[] }
  | { readonly elastic: true; readonly bounds: ElasticBounds; readonly errors: readonly FieldError[] };

const INT32_MAX = 2 ** 31 - 1;

/**
 * Most worker slots of an elastic job. Every replica's TF_CONFIG lists every slot (up to ~160 bytes
 * each with a 63-character service name and namespace), and Linux refuses to start a process with
 * one environment variable over 128 KiB (MAX_ARG_STRLEN): 512 slots stay under it in any case. A
 * larger maxReplicas is clamped to it; a minReplicas above it is refused at admission.
 */
export const MAX_ELASTIC_WORKERS = 512;

function annotationField(key: string): string {
  return `metadata.annotations[${key}]`;
}

function parseCount(raw: string | undefined, key: string, errors: FieldError[]): number | undefined {
  if (raw === undefined) return undefined;
  // Exactly digits: " 2" or "2 " is a typo to report, not a value to guess (as an int32 field would).
  if (!/^[0-9]+$/.test(raw) || Number(raw) > INT32_MAX) {
    errors.push(invalid(annotationField(key), raw, 'must be a non-negative integer'));
    return undefined;
  }
  return Number(raw);
}

/** `Worker.replicas` as written (any key spelling), defaulting to 1 like tf-operator. */
function workerReplicas(job: TFJob): number | undefined {
  const specs = job.spec?.tfReplicaSpecs ?? {};
  for (const [key, spec] of Object.entries(specs)) {
    if (canonicalReplicaType(key) === REPLICA_TYPE_WORKER) return spec?.replicas ?? 1;
  }
  return undefined;
}

/**
 * Bounds: min = minReplicas ?? min annotation ?? 1; max = maxReplicas ?? max annotation ??
 * max(min, Worker.replicas ?? 1). Errors name the field (or annotation) at fault.
 */
export function resolveElastic(job: TFJob): ElasticResolution {
  const errors: FieldError[] = [...trainingStyleErrors(job)];
  const annotations = job.metadata.annotations ?? {};
  const policy = job.spec?.elasticPolicy;
  const minAnnotation = parseCount(annotations[ANNOTATION_MIN_WORKERS], ANNOTATION_MIN_WORKERS, errors);
  const maxAnnotation = parseCount(annotations[ANNOTATION_MAX_WORKERS], ANNOTATION_MAX_WORKERS, errors);
  const hasAnnotation = ANNOTATION_MIN_WORKERS in annotations || ANNOTATION_MAX_WORKERS in annotations;
  if (!policy && !hasAnnotation) return { elastic: false, errors };

  const workers = workerReplicas(job);
  if (workers === undefined) {
    errors.push(
      policy
        ? invalid('spec.elasticPolicy', OMIT_VALUE, 'requires a Worker entry in spec.tfReplicaSpecs')
        : required('spec.tfReplicaSpecs[Worker]', 'elastic worker annotations require a Worker replica type'),
    );
  }
  const minField = policy?.minReplicas !== undefined ? 'spec.elasticPolicy.minReplicas' : annotationField(ANNOTATION_MIN_WORKERS);
  const maxField = policy?.maxReplicas !== undefined ? 'spec.elasticPolicy.maxReplicas' : annotationField(ANNOTATION_MAX_WORKERS);
  const min = policy?.minReplicas ?? minAnnotation ?? 1;
  const max = policy?.maxReplicas ?? maxAnnotation ?? Math.max(min, workers ?? 1);
  // Same words as the CRD's OpenAPI `minimum` for the spec fields.
  if (min < 1) errors.push(invalid(minField, min, `${minField} in body should be greater than or equal to 1`));
  // The CRD's OpenAPI `maximum` for the spec field; same words.
  else if (min > MAX_ELASTIC_WORKERS) {
    errors.push(invalid(minField, min, `${minField} in body should be less than or equal to ${MAX_ELASTIC_WORKERS}`));
  }
  if (max < 1) errors.push(invalid(maxField, max, `${maxField} in body should be greater than or equal to 1`));
  else if (max < min) {
    // Both bounds in the spec: the CRD's CEL rule says this at admission; same words here.
    const bothInSpec = policy?.minReplicas !== undefined && policy.maxReplicas !== undefined;
    errors.push(
      bothInSpec
        ? invalid(maxField, OMIT_VALUE, 'must be greater than or equal to spec.elasticPolicy.minReplicas')
        : invalid(maxField, max, `must be greater than or equal to the minimum worker count (${min})`),
    );
  }
  return { elastic: true, bounds: { min, max }, errors };
}

function trainingStyleErrors(job: TFJob): FieldError[] {
  const style = job.metadata.annotations?.[ANNOTATION_TRAINING_STYLE];
  if (style === undefined || TRAINING_STYLES.includes(style)) return [];
  return [invalid(annotationField(ANNOTATION_TRAINING_STYLE), style, `must be one of ${TRAINING_STYLES.join(', ')}`)];
}

/** The job declares a style whose chief waits for every worker slot TF_CONFIG lists before it trains. */
export function needsAllWorkers(job: TFJob): boolean {
  const style = job.metadata.annotations?.[ANNOTATION_TRAINING_STYLE];
  return style !== undefined && TRAINING_STYLES_NEEDING_ALL_WORKERS.includes(style);
}
