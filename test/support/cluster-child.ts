// Started by the cleanup test as a separate process: brings up a local cluster, prints its state as
// one JSON line, then idles until it is killed.
import { LocalCluster } from '../../lab/local-cluster/index.ts';

const cluster = await LocalCluster.start({ kwok: true, onProgress: () => undefined });
process.stdout.write(`${JSON.stringify(cluster.state)}\n`);
setInterval(() => undefined, 1_000);
