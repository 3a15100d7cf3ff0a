// Pod and Service names (`<job>-<lowercase type>-<index>`): TF_CONFIG host names and every client that
// looks pods up by name depend on them.

/** tf-operator's `GenGeneralName`: any `/` becomes `-`. */
export function replicaName(jobName: string, replicaType: string, index: number): string {
  return `${jobName}-${replicaType.toLowerCase()}-${index}`.replaceAll('/', '-');
}

/** Value of the job-name label (`/` replaced, as in tf-operator's `GenLabels`). */
export function jobNameLabelValue(jobName: string): string {
  return jobName.replaceAll('/', '-');
}
