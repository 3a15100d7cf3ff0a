// The TFJob field behind a pod create the API server's admission plugins refuse. Their messages speak
// of the pod ("the integer value of priority (5) must not be provided in pod spec"); the user edits a
// TFJob, so the job's status and event add the refusing plugin, the path in the TFJob and what to do.
// tf-operator accepts these TFJobs too (its CRD has no such rule), so they are explained, not rejected
// at admission.
import { LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import { canonicalReplicaType } from '../../api/v1/replica-types.ts';

interface Hint {
  /** Matches the API server's refusal message. */
  readonly pattern: RegExp;
  /** The admission plugin that refuses, as the API server's `--enable-admission-plugins` names it. */
  readonly plugin: string;
  /** Fields under the replica's pod template, and why admission refuses them. */
  readonly fields: readonly string[];
  readonly why: string;
  /**
   * Only an edit of the TFJob can lift it: the plugin judges the pod template alone, against nothing
   * a cluster admin changes meanwhile. Such creates are not retried until the job's spec changes.
   */
  readonly permanent?: true;
}

const HINTS: readonly Hint[] = [
  {
    // plugin/pkg/admission/priority: a pod may not set spec.priority itself (it comes from its class).
    pattern: /integer value of priority \(-?\d+\) must not be provided/,
    plugin: 'Priority',
    fields: ['spec.priority'],
    why: 'the Priority admission plugin sets a pod priority from its PriorityClass and refuses pods that set it themselves: remove the field (name a PriorityClass instead)',
    permanent: true,
  },
  {
    pattern: /string value of PreemptionPolicy \(\S*\) must not be provided/,
    plugin: 'Priority',
    fields: ['spec.preemptionPolicy'],
    why: 'the Priority admission plugin sets a pod preemption policy from its PriorityClass and refuses pods that set another: remove the field',
    permanent: true,
  },
  {
    pattern: /no PriorityClass with name .* was found/,
    plugin: 'Priority',
    fields: ['spec.priorityClassName'],
    why: 'no PriorityClass of that name exists (the Priority admission plugin refuses the pod): create it or remove the field',
  },
  {
    pattern: /error looking up service account /,
    plugin: 'ServiceAccount',
    fields: ['spec.serviceAccountName'],
    why: 'no ServiceAccount of that name exists in the namespace (the ServiceAccount admission plugin refuses the pod): create it or fix the name',
  },
  {
    pattern: /RuntimeClass ".*" not found/,
    plugin: 'RuntimeClass',
    fields: ['spec.runtimeClassName'],
    why: 'no RuntimeClass of that name exists (the RuntimeClass admission plugin refuses the pod): create it or remove the field',
  },
  {
    pattern: /Pod Overhead set without corresponding RuntimeClass defined Overhead/,
    plugin: 'RuntimeClass',
    fields: ['spec.overhead'],
    why: 'the RuntimeClass admission plugin sets a pod overhead from its RuntimeClass and refuses pods that set it themselves: remove the field',
    permanent: true,
  },
  {
    pattern: /exceeded quota:/,
    plugin: 'ResourceQuota',
    fields: ['spec.containers[*].resources'],
    why: "the namespace's ResourceQuota has no room for this pod's requests: the pods wait until the quota allows them",
  },
  {
    pattern: /must specify (limits|requests)\./,
    plugin: 'ResourceQuota',
    fields: ['spec.containers[*].resources'],
    why: "the namespace's ResourceQuota requires every container to declare these resources",
  },
  {
    pattern: /(maximum|minimum) (\S+ )?usage per (Container|Pod)/,
    plugin: 'LimitRanger',
    fields: ['spec.containers[*].resources'],
    why: "outside the namespace's LimitRange",
  },
  {
    pattern: /violates PodSecurity/,
    plugin: 'PodSecurity',
    fields: ['spec.securityContext', 'spec.containers[*].securityContext'],
    why: "the namespace's Pod Security level forbids what the API server lists",
  },
];

const WEBHOOK = /admission webhook "([^"]+)" denied the request/;

/** Who refused a create, and whether retrying without a change of the TFJob can ever succeed. */
export interface RefusalClass {
  /** `Priority`, `ResourceQuota`, `webhook example.com`, or undefined when the message names none. */
  readonly plugin: string | undefined;
  readonly permanent: boolean;
}

export function classifyRefusal(message: string): RefusalClass {
  const hint = HINTS.find((h) => h.pattern.test(message));
  if (hint !== undefined) return { plugin: hint.plugin, permanent: hint.permanent === true };
  const webhook = WEBHOOK.exec(message);
  return { plugin: webhook === null ? undefined : `webhook ${webhook[1]}`, permanent: false };
}

/**
 * `message` with the refusing plugin and the TFJob field it refers to, e.g. `... (Priority admission plugin;
 * spec.tfReplicaSpecs.Worker.template.spec.priority: the Priority admission plugin ...)`. Unknown
 * refusals are returned unchanged (a webhook's refusal names the webhook itself).
 */
export function explainRefusal(pod: { metadata?: { labels?: Record<string, string> } }, message: string): string {
  const hint = HINTS.find((h) => h.pattern.test(message));
  if (hint === undefined) return message;
  const label = pod.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? '';
  const type = canonicalReplicaType(label) ?? (label === '' ? '<type>' : label);
  const field = hint.fields.map((f) => `spec.tfReplicaSpecs.${type}.template.${f}`).join(', ');
  return `${message} (${hint.plugin} admission plugin; ${field}: ${hint.why})`;
}

/** What the job's status and event add to a permanent refusal: why it is not retried. */
export const NOT_RETRIED = "not retried until the TFJob's spec changes";
