// Plain-object views of client-node's model classes. client-node 2 declares Pod, Service, ... as
// classes; we build and read plain JSON objects, which lint (rightly) refuses to pass off as class
// instances. `Plain<T>` is the same shape as an object type, structurally assignable to the class.

import type {
  V1Container,
  V1ContainerStatus,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1PodTemplateSpec,
  V1Service,
} from '@kubernetes/client-node';

export type Plain<T> = T extends Date
  ? T
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T;

export type Pod = Plain<V1Pod>;
export type PodTemplateSpec = Plain<V1PodTemplateSpec>;
export type Container = Plain<V1Container>;
export type ContainerStatus = Plain<V1ContainerStatus>;
export type Service = Plain<V1Service>;
export type ObjectMeta = Plain<V1ObjectMeta>;
export type OwnerReference = Plain<V1OwnerReference>;
