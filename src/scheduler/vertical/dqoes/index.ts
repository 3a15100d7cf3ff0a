// DQoES's own vertical mechanism as a plugin: CPU limits move from jobs ahead of their target to jobs
// behind theirs on the same node. Pure; the operator's vertical stage applies its changes.
export * from './rule.ts';
export * from './interval.ts';
