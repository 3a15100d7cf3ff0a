export { LocalCluster, type ClusterState, type LocalClusterOptions } from './cluster.ts';
export {
  fakeNode,
  fakeNodes,
  type FakeNodeSpec,
  KWOK_NODE_ANNOTATION,
  POD_EXIT_CODE_ANNOTATION,
  POD_EXIT_REASON_ANNOTATION,
  NODE_NOT_READY_ANNOTATION,
} from './nodes.ts';
export { CACHE_ROOT, ensureControlPlaneBinaries, ensureUpstream, REPO_ROOT, type UpstreamBinaries } from './binaries.ts';
