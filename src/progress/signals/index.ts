// Training-progress signals: the log protocol, its parser, per-job phases and the evaluation period.
// Pure: no Kubernetes, no I/O. The operator reads the logs and the simulator feeds curves into the same code.
export * from './protocol.ts';
export * from './keras.ts';
export * from './parse.ts';
export * from './phase.ts';
export * from './period.ts';
export * from './source.ts';
export * from './rate.ts';
export * from './metrics-text.ts';
export * from './log-lines.ts';
export * from './detach.ts';
export * from './plan.ts';
export * from './evaluation-series.ts';
