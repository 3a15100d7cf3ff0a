export { DEFAULT_REAL_NODE_NAME, RealNode, stopRealNode, type RealNodeOptions } from './real-node.ts';
export {
  BUSYBOX_IMAGE,
  ESTIMATOR_TENSORFLOW_IMAGE,
  ESTIMATOR_TENSORFLOW_VERSION,
  PAUSE_IMAGE,
  TENSORFLOW_IMAGE,
  TENSORFLOW_VERSION,
} from './images.ts';
export { readRealNodeState, type RealNodeState } from './teardown.ts';
export { restartKubelet } from './kubelet-restart.ts';
export { createTrainersConfigMap, HELPER_PACKAGE_FILES, REAL_NODE_LABEL, trainerReplicaSpec, type TrainerReplica } from './trainers.ts';
export { containerCpuCgroup, containerCpuQuotaMillis } from './cgroup-cpu.ts';
