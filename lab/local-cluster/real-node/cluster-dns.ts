// Cluster DNS for the real node: CoreDNS (hack/tools/coredns, only the plugins needed) on the bridge
// address, answering the cluster domain from the apiserver (services and their EndpointSlices), which
// is how TF_CONFIG's `<job>-<type>-<i>.<ns>.svc` names resolve in pods. Nothing is forwarded: a name
// outside the cluster domain fails at once instead of leaving the machine.
import { Resolver } from 'node:dns/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export function writeCorefile(workDir: string, listen: string, kubeconfig: string): string {
  const file = path.join(workDir, 'Corefile');
  writeFileSync(
    file,
    [
      'cluster.local:53 {',
      `    bind ${listen}`,
      '    errors',
      `    kubernetes cluster.local {`,
      `        kubeconfig ${kubeconfig}`,
      '        pods insecure',
      '        ttl 5',
      '    }',
      '    cache 5',
      '}',
      '.:53 {',
      `    bind ${listen}`,
      '    errors',
      '}',
      '',
    ].join('\n'),
  );
  return file;
}

/** Resolves once the server answers for the apiserver's own service. */
export async function waitForClusterDns(server: string, alive: () => boolean, timeoutMs = 60_000): Promise<void> {
  const resolver = new Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([server]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('CoreDNS exited during start-up');
    try {
      if ((await resolver.resolve4('kubernetes.default.svc.cluster.local')).length > 0) return;
    } catch {
      // not serving yet
    }
    if (Date.now() > deadline) throw new Error(`cluster DNS on ${server} did not answer within ${timeoutMs / 1000} s`);
    await sleep(300);
  }
}
