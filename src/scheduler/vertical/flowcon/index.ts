// FlowCon as a vertical plugin: in-place CPU limits of running containers from their jobs' growth
// efficiency. Pure; the operator's vertical stage (src/operator/vertical/) applies its changes.
export * from './types.ts';
export * from '../limits.ts';
export * from './growth.ts';
export * from './rule.ts';
