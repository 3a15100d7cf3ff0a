// Public surface of the TFJob API package (kubeflow.org/v1).

export * from './constants.ts';
export * from './conditions.ts';
export * from './policies.ts';
export * from './replica-types.ts';
export * from './schema.ts';
export type { Pod, PodTemplateSpec, Container, ContainerStatus, Service, OwnerReference, Plain } from './k8s-types.ts';
export { parseTFJob, describeIssues } from './parse.ts';
export type { ParseResult } from './parse.ts';
export { applyDefaults, normaliseReplicaTypeKeys, defaultContainerIndex } from './defaults.ts';
export type { DefaultedTFJob, DefaultedTFJobSpec, DefaultedReplicaSpec, DefaultedRunPolicy } from './defaults.ts';
export { validateTFJob, validateJobName, MANAGED_BY_TRAINING_OPERATOR, MANAGED_BY_MULTIKUEUE } from './validation.ts';
export { resolveElastic } from './elastic.ts';
export type { ElasticBounds, ElasticResolution } from './elastic.ts';
export { aggregateFieldErrors, formatFieldError } from './field-error.ts';
export type { FieldError, FieldErrorType } from './field-error.ts';
