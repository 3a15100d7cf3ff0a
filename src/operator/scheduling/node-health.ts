// Which nodes count as lost. A deleted node's pods are lost at once (no kubelet will ever confirm
// their end, as kube-controller-manager's pod GC would conclude after its quarantine); a NotReady
// node may come back, so its pods count as lost only after a grace period, measured from when this
// replica saw the node turn NotReady.
import type { V1Node } from '@kubernetes/client-node';
import type { NodeLoss } from './pass/snapshot.ts';

export class NodeHealth {
  readonly #graceMs: number;
  /** When each node was last seen turning NotReady (real ms). */
  readonly #notReadySince = new Map<string, number>();

  constructor(graceMs: number) {
    this.#graceMs = graceMs;
  }

  /** Follows a node informer event. */
  observe(type: 'add' | 'update' | 'delete', node: V1Node, now: number): void {
    const name = node.metadata?.name ?? '';
    const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    if (type === 'delete' || ready) this.#notReadySince.delete(name);
    else if (!this.#notReadySince.has(name)) this.#notReadySince.set(name, now);
  }

  /** Whether pods on `node` are lost; `exists` says whether the node is still in the cache. */
  lost(node: string | undefined, exists: boolean, now: number): NodeLoss | undefined {
    if (node === undefined) return undefined;
    if (!exists) return { why: 'no longer exists', nodeGone: true };
    const since = this.#notReadySince.get(node);
    if (since !== undefined && now - since >= this.#graceMs) {
      return { why: `has been NotReady for ${Math.round((now - since) / 1000)}s`, nodeGone: false };
    }
    return undefined;
  }
}
