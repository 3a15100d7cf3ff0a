// Public API of the workload models, shared by the simulator and the real-cluster training emulator:
//
//   const scenario = loadScenario('kod2-paper-b32');          // cluster shape + WorkloadJob[]
//   const job = scenario.jobs.find((j) => j.name === name);
//   const rate = progressRate(job, { ps: ['node-0'], workers: ['node-0', 'node-2'] }); // work units/s
//   remaining -= rate * elapsedSeconds;                        // done when remaining ≤ 0 (job.work at start)
//
// The placement lists only replicas that are running (bound and started); progress is zero unless
// every PS and at least one worker are in it (a job declaring no PS: one worker is enough).
export type { ClusterShape, NodePool, ReplicaPlacement, ThroughputModel, WorkloadJob } from './model.ts';
export { clusterCapacity, clusterNodes, nodeNames } from './model.ts';
export { progressRate } from './throughput.ts';
export { fewestNodesPlacement, fewestNodesRate, idealRuntimeSeconds, minimumResourceSeconds } from './ideal.ts';
export type { Scenario } from './scenario.ts';
export { listScenarioNames, loadScenario, resolveScenarioFile, ScenarioError } from './scenario.ts';
export type { ScenarioDefinition } from './scenario-schema.ts';
