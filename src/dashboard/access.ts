// What the user may watch, asked of the API server (SelfSubjectAccessReview) before any watch starts:
// a kind it may list and watch in every namespace gets one cluster-wide watch; otherwise one watch per
// namespace it may (from --namespace, else its kubeconfig context's namespace); a kind it may not
// read at all is left out and the page says so. Nothing is widened: the API server's answer is final.
import { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import { queueCrdsServed } from '../operator/scheduling/queues/caches.ts';
import type { KubeClients } from '../runtime/kube-client.ts';
import { KINDS, type KindName, type KindSpec } from './sources.ts';
import type { Access } from './types.ts';

async function allowed(clients: KubeClients, spec: KindSpec, namespace: string | undefined): Promise<boolean> {
  const api = clients.api(AuthorizationV1Api);
  for (const verb of ['list', 'watch']) {
    const review = await api.createSelfSubjectAccessReview({
      body: {
        spec: {
          resourceAttributes: { verb, group: spec.group, resource: spec.resource, ...(namespace === undefined ? {} : { namespace }) },
        },
      },
    });
    if (review.status?.allowed !== true) return false;
  }
  return true;
}

async function accessTo(
  clients: KubeClients,
  spec: KindSpec,
  namespaces: readonly string[],
  wanted: readonly string[],
): Promise<Access[string]> {
  if (wanted.length === 0 && (await allowed(clients, spec, undefined))) return { scope: 'cluster' };
  if (!spec.namespaced) return { scope: 'denied', why: `you may not list and watch ${spec.resource}` };
  const ok: string[] = [];
  for (const ns of namespaces) if (await allowed(clients, spec, ns)) ok.push(ns);
  return ok.length === 0
    ? { scope: 'denied', why: `you may not list and watch ${spec.resource} in ${namespaces.join(', ')}` }
    : { scope: 'namespaces', namespaces: ok };
}

/**
 * `wanted`: namespaces the user asked for (empty: all it may see). `fallback`: where to look when it
 * may not watch cluster-wide and named none (its context's namespace).
 */
export async function resolveAccess(clients: KubeClients, wanted: readonly string[], fallback: string): Promise<Access> {
  const namespaces = wanted.length > 0 ? wanted : [fallback];
  const out: Record<string, Access[string]> = {};
  const queues = await queueCrdsServed(clients);
  for (const kind of Object.keys(KINDS) as KindName[]) {
    if (!queues && (kind === 'clusterqueues' || kind === 'localqueues')) {
      out[kind] = { scope: 'denied', why: 'the queue CRDs are not installed (one global queue)' };
      continue;
    }
    // Nodes and ClusterQueues have no namespace: a namespace filter does not hide them.
    const spec: KindSpec = KINDS[kind];
    out[kind] = await accessTo(clients, spec, namespaces, spec.namespaced ? wanted : []);
  }
  return out;
}

/** The user's name as the API server authenticated it, when it says (SelfSubjectReview). */
export async function whoAmI(clients: KubeClients): Promise<string> {
  try {
    const review = await clients.api(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    return review.status?.userInfo?.username ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
