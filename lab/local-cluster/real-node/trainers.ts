// The example trainers (python/examples/ and the progress helper) as TFJob replicas on the real node:
// one ConfigMap holds the scripts, and each replica runs one of them in the locally built TensorFlow
// image. The real-node tests and `demo --real` build their jobs from these.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CoreV1Api } from '@kubernetes/client-node';
import { REPO_ROOT } from '../binaries.ts';
import { TENSORFLOW_IMAGE } from './images.ts';

export const TRAINERS_CONFIGMAP = 'trainers';
/** What `pip install ./python` needs: copied out of the ConfigMap (read-only) and installed in a pod. */
export const HELPER_PACKAGE_FILES = ['tfjob_progress.py', 'pyproject.toml', 'README.md'] as const;
export const REAL_NODE_LABEL = 'tfjob-operator.kubeflow.org/real-node';

/** python/examples/*.py, and the helper package (python/tfjob_progress.py, pyproject.toml, README.md), by file name. */
function trainerFiles(): Record<string, string> {
  const dir = path.join(REPO_ROOT, 'python', 'examples');
  const data: Record<string, string> = {};
  for (const f of HELPER_PACKAGE_FILES) data[f] = readFileSync(path.join(REPO_ROOT, 'python', f), 'utf8');
  for (const f of readdirSync(dir)) if (f.endsWith('.py')) data[f] = readFileSync(path.join(dir, f), 'utf8');
  return data;
}

export async function createTrainersConfigMap(core: CoreV1Api, namespace: string): Promise<void> {
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: TRAINERS_CONFIGMAP }, data: trainerFiles() } });
}

export interface TrainerReplica {
  readonly replicas: number;
  readonly cpu: string;
  /** A CPU limit above the request (Burstable: in-place resize may move it); none by default. */
  readonly cpuLimit?: string;
  readonly memory?: string;
  /** A file of python/examples/ (default ps_v1.py), unless `command` is given. */
  readonly script?: string;
  readonly command?: readonly string[];
  /** Default TENSORFLOW_IMAGE; ESTIMATOR_TENSORFLOW_IMAGE for `estimator.py`. */
  readonly image?: string;
  readonly restartPolicy?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Give the container a terminal (progress bars then redraw one line with \r, as on a console). */
  readonly tty?: boolean;
  /** A host directory mounted at /ckpt (checkpoints that outlive the pods). */
  readonly hostPath?: string;
}

/** One replica type of a TFJob running a trainer on the real node. */
export function trainerReplicaSpec(r: TrainerReplica): Record<string, unknown> {
  const env = { PYTHONPATH: '/trainers', TF_CPP_MIN_LOG_LEVEL: '2', ...r.env };
  const ckpt = r.hostPath === undefined ? undefined : { name: 'checkpoints', hostPath: { path: r.hostPath, type: 'DirectoryOrCreate' } };
  return {
    replicas: r.replicas,
    restartPolicy: r.restartPolicy ?? 'OnFailure',
    template: {
      spec: {
        nodeSelector: { [REAL_NODE_LABEL]: 'true' },
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: 'tensorflow',
            image: r.image ?? TENSORFLOW_IMAGE,
            imagePullPolicy: 'Never',
            command: r.command ?? ['python3', '-u', `/trainers/${r.script ?? 'ps_v1.py'}`],
            env: Object.entries(env).map(([name, value]) => ({ name, value })),
            resources: {
              requests: { cpu: r.cpu, memory: r.memory ?? '400Mi' },
              ...(r.cpuLimit === undefined ? {} : { limits: { cpu: r.cpuLimit } }),
            },
            ...(r.tty === true ? { tty: true } : {}),
            volumeMounts: [{ name: 'trainers', mountPath: '/trainers' }, ...(ckpt ? [{ name: 'checkpoints', mountPath: '/ckpt' }] : [])],
          },
        ],
        volumes: [{ name: 'trainers', configMap: { name: TRAINERS_CONFIGMAP } }, ...(ckpt ? [ckpt] : [])],
      },
    },
  };
}
