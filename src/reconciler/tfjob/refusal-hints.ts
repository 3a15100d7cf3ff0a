// The TFJob field behind a pod create the API server's admission plugins refuse. Their messages speak
// of the pod ("the integer value of priority (5) must not be provided in pod spec"); the user edits a
// TFJob, so the job's status and event add the path in the TFJob and what to do. tf-operator accepts
// these TFJobs too (its CRD has no such rule), so they are explained, not rejected at admission.
import { LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import { canonicalReplicaType } from '../../api/v1/replica-types.ts';

interface Hint {
  /** Matches the API server's refusal message. */
  readonly pattern: RegExp;
  /** Fields under the replica's pod template, and why admission refuses them. */
  readonly fields: readonly string[];
  readonly why: string;
}

const HINTS: readonly Hint[] = [
  {
    // plugin/pkg/admission/priority: a pod may not set spec.priority itself (it comes from its class).
    pattern: /integer value of priority \(-?\d+\) must not be provided/,
    fields: ['spec.priority'],
    why: 'the Priority admission plugin sets a pod priority from its PriorityClass and refuses pods that set it themselves: remove the field (name a PriorityClass instead)',
  },
  {
    pattern: /no PriorityClass with name .* was found/,
    fields: ['spec.priorityClassName'],
    why: 'no PriorityClass of that name exists (the Priority admission plugin refuses the pod): create it or remove the field',
  },
  {
    pattern: /error looking up service account /,
    fields: ['spec.serviceAccountName'],
    why: 'no ServiceAccount of that name exists in the namespace (the ServiceAccount admission plugin refuses the pod): create it or fix the name',
  },
  {
    pattern: /RuntimeClass ".*" not found/,
    fields: ['spec.runtimeClassName'],
    why: 'no RuntimeClass of that name exists (the RuntimeClass admission plugin refuses the pod): create it or remove the field',
  },
  {
    pattern: /exceeded quota:/,
    fields: ['spec.containers[*].resources'],
    why: "the namespace's ResourceQuota has no room for this pod's requests: the pods wait until the quota allows them",
  },
  {
    pattern: /must specify (limits|requests)\./,
    fields: ['spec.containers[*].resources'],
    why: "the namespace's ResourceQuota requires every container to declare these resources",
  },
  {
    pattern: /(maximum|minimum) (\S+ )?usage per (Container|Pod)/,
    fields: ['spec.containers[*].resources'],
    why: "outside the namespace's LimitRange",
  },
  {
    pattern: /violates PodSecurity/,
    fields: ['spec.securityContext', 'spec.containers[*].securityContext'],
    why: "the namespace's Pod Security level forbids what the API server lists",
  },
];

/**
 * `message` with the TFJob field it refers to, e.g. `...; spec.tfReplicaSpecs.Worker.template.spec.priority:
 * the Priority admission plugin ...`. Unknown refusals are returned unchanged.
 */
export function explainRefusal(pod: { metadata?: { labels?: Record<string, string> } }, message: string): string {
  const hint = HINTS.find((h) => h.pattern.test(message));
  if (hint === undefined) return message;
  const label = pod.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? '';
  const type = canonicalReplicaType(label) ?? (label === '' ? '<type>' : label);
  const field = hint.fields.map((f) => `spec.tfReplicaSpecs.${type}.template.${f}`).join(', ');
  return `${message} (${field}: ${hint.why})`;
}
