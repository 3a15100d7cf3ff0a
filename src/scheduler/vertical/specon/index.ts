// SpeCon: speculative migration of slow-growing jobs' workers off nodes where faster-growing jobs
// are CPU-constrained. Pure; the operator's vertical stage (src/operator/migration/) carries moves out.
export * from './types.ts';
export * from './rule.ts';
export * from './recorded.ts';
