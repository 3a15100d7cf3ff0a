// The cluster's one switch for in-place CPU limits (--vertical-policy).
// specon: FlowCon's limits, plus SpeCon's migrations of slow jobs' workers (src/operator/migration/).
export const VERTICAL_POLICIES = ['none', 'flowcon', 'dqoes', 'specon'] as const;
export type VerticalPolicy = (typeof VERTICAL_POLICIES)[number];

/** A job opts out with this annotation set to "false": its containers' limits are never changed. */
export const ANNOTATION_CPU_RESIZE = 'tfjob-operator.kubeflow.org/cpu-resize';
