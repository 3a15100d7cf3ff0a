import { stringify } from 'yaml';

export interface KubeconfigUser {
  readonly name: string;
  readonly token: string;
}

/** A kubeconfig with one cluster, one user (bearer token) and one current context. */
export function renderKubeconfig(opts: { server: string; caFile: string; user: KubeconfigUser; contextName?: string }): string {
  const context = opts.contextName ?? 'tfjob-local';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: context, cluster: { server: opts.server, 'certificate-authority': opts.caFile } }],
    users: [{ name: opts.user.name, user: { token: opts.user.token } }],
    contexts: [{ name: context, context: { cluster: context, user: opts.user.name } }],
    'current-context': context,
  });
}
