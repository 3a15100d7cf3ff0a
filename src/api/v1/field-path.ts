// Field paths in the apiserver's notation (`spec.tfReplicaSpecs[Worker].template.spec.containers[0]`),
// so that messages from our own checks read like the ones kubectl prints for admission errors.

/** Object fields whose children are map keys (rendered `[key]`), not struct fields. */
const MAP_FIELDS: ReadonlySet<string> = new Set([
  'tfReplicaSpecs',
  'replicaStatuses',
  'podRecreations',
  'labels',
  'annotations',
  'minResources',
]);

export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  let previous: PropertyKey | undefined;
  for (const segment of path) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
    } else if (typeof previous === 'string' && MAP_FIELDS.has(previous)) {
      out += `[${String(segment)}]`;
    } else {
      out += out === '' ? String(segment) : `.${String(segment)}`;
    }
    previous = segment;
  }
  return out === '' ? '<root>' : out;
}
