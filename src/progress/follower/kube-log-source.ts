// The progress reader's log source on a real API server: `pods/log` with timestamps, through the
// operator's shared client (its rate limit and request metrics apply).
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { LogRequest, LogSource } from './reader.ts';

export class KubeLogSource implements LogSource {
  readonly #clients: KubeClients;

  constructor(clients: KubeClients) {
    this.#clients = clients;
  }

  async read(r: LogRequest): Promise<string> {
    const query = new URLSearchParams({ container: r.container, timestamps: 'true', limitBytes: String(r.limitBytes) });
    if (r.sinceTime !== undefined) query.set('sinceTime', r.sinceTime);
    if (r.tailLines !== undefined) query.set('tailLines', String(r.tailLines));
    const path = `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/log?${query.toString()}`;
    return this.#clients.getText(path);
  }
}
