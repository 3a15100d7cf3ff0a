export { DEFAULT_REAL_NODE_NAME, REAL_NODE_LABEL, RealNode, stopRealNode, type RealNodeOptions } from './real-node.ts';
export { BUSYBOX_IMAGE, PAUSE_IMAGE, TENSORFLOW_IMAGE, TENSORFLOW_VERSION } from './images.ts';
export { readRealNodeState, type RealNodeState } from './teardown.ts';
