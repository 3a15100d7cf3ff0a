// The scheduler's and the migration step's pod removal (mark, then delete, both with the pod's UID),
// against a small fake of the two API calls: what it reports when the TFJob controller completes the
// marked removal before its own delete goes out (the pod watch delivers the mark first).
import { ApiException, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubePodRemover } from '../../../../src/operator/scheduling/pod-remover.ts';
import type { KubeClients } from '../../../../src/runtime/kube-client.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';

const pod: V1Pod = { metadata: { name: 'job-worker-1', namespace: 'ns', uid: 'uid-1' } };
const answer = (code: number | undefined) =>
  code === undefined ? Promise.resolve({}) : Promise.reject(new ApiException(code, `HTTP ${code}`, '{}', {}));

function remover(patch: number | undefined, del: number | undefined) {
  const calls: string[] = [];
  const core = {
    patchNamespacedPod: () => {
      calls.push('patch');
      return answer(patch);
    },
    deleteNamespacedPod: () => {
      calls.push('delete');
      return answer(del);
    },
  };
  // Only the two calls the remover makes; the rest of CoreV1Api is never touched.
  const clients = { api: () => core as unknown as CoreV1Api } as unknown as Pick<KubeClients, 'api'>;
  return { calls, remover: new KubePodRemover(clients, silentLogger()) };
}

describe('KubePodRemover', () => {
  it.each([
    ['marked and deleted', undefined, undefined, 'removed', ['patch', 'delete']],
    // The controller saw the mark and deleted the pod first: the removal we asked for happened.
    ['marked, then deleted meanwhile (404)', undefined, 404, 'removed', ['patch', 'delete']],
    ['marked, then replaced meanwhile (409)', undefined, 409, 'removed', ['patch', 'delete']],
    // Gone before our mark: nothing of ours was done.
    ['already deleted when marked (404)', 404, undefined, 'gone', ['patch']],
    ['already replaced when marked (409)', 409, undefined, 'gone', ['patch']],
  ] as const)('%s: %s', async (_what, patch, del, want, calls) => {
    const r = remover(patch, del);
    expect(await r.remover.remove(pod, 'migration')).toBe(want);
    expect(r.calls).toEqual(calls);
  });

  it('any other refusal is an error for the caller', async () => {
    await expect(remover(undefined, 500).remover.remove(pod, 'scale-in')).rejects.toThrow(/500/);
    await expect(remover(403, undefined).remover.remove(pod, 'scale-in')).rejects.toThrow(/403/);
  });
});
