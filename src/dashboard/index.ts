// `tfjob-operator dashboard`: a read-only web page of the cluster, queues and TFJobs, live from
// watches made with the user's own kubeconfig (its RBAC decides what shows). See docs/dashboard.md.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClients } from '../runtime/kube-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { namespacedKey } from '../runtime/store.ts';
import { resolveAccess, whoAmI } from './access.ts';
import { assertAssets } from './assets.ts';
import { JobHistories } from './history.ts';
import { HistoryRecorder } from './recorder.ts';
import { DashboardServer } from './server.ts';
import { allInformers, createCaches } from './sources.ts';
import type { Access } from './types.ts';
import { buildDetail, buildSnapshot } from './views.ts';

export interface DashboardOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  /** Namespaces to show; empty: every namespace the user may watch. */
  readonly namespaces: readonly string[];
  readonly host?: string;
  readonly port?: number;
  /** Samples kept per job (the ring); see docs/dashboard.md for what it costs. */
  readonly samplesPerJob?: number;
}

export interface Dashboard {
  readonly url: string;
  readonly access: Access;
  readonly server: DashboardServer;
  stop(): Promise<void>;
}

export const DEFAULT_SAMPLES_PER_JOB = 720;
const SYNC_WAIT_MS = 30_000;

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  assertAssets();
  const clients = new KubeClients(opts.kubeConfig, { userAgent: 'tfjob-operator-dashboard' });
  const fallback = opts.kubeConfig.getContextObject(opts.kubeConfig.getCurrentContext())?.namespace ?? 'default';
  const access = await resolveAccess(clients, opts.namespaces, fallback);
  const user = await whoAmI(clients);
  const caches = createCaches({ clients, logger: opts.logger }, access);
  const histories = new JobHistories(opts.samplesPerJob ?? DEFAULT_SAMPLES_PER_JOB);
  const recorder = new HistoryRecorder(caches, histories);
  const server = new DashboardServer({
    snapshot: () => buildSnapshot(caches, access, user, Date.now()),
    job: (ns, name) => buildDetail(caches, histories, (k) => recorder.podsOf(k), namespacedKey(ns, name)),
  });
  recorder.attach(() => {
    server.changed();
  });
  const informers = allInformers(caches);
  for (const i of informers)
    i.on(() => {
      server.changed();
    });
  for (const i of informers) i.start();
  // A kind whose list keeps failing must not keep the page from opening: it fills in when it syncs.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(informers.map((i) => i.waitForSync())),
    new Promise((resolve) => (timer = setTimeout(resolve, SYNC_WAIT_MS))),
  ]);
  clearTimeout(timer);
  const url = await server.listen(opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    access,
    server,
    stop: async () => {
      for (const i of informers) i.stop();
      await server.close();
    },
  };
}
