// The SpeCon scenario of the kwok tests (--vertical-policy specon): jobs whose CPU limits contend on
// one node, and their progress fed as log lines through `pods/log`, so FlowCon classifies them and
// SpeCon moves the slow one's worker when a node with room appears.
import type { V1Pod } from '@kubernetes/client-node';
import { PROGRESS_PREFIX } from '../../src/progress/signals/index.ts';
import { servePodLog, type PodLog } from './pod-logs.ts';
import { onPool, type Pool } from './pool.ts';
import { tfjob, type TestTFJob } from './tfjob.ts';

/** The operator of both SpeCon tests: ours, FlowCon limits plus migration, rounds every 2 s, α low enough to tell the jobs apart. */
export const SPECON_OPERATOR_FLAGS: readonly string[] = [
  '--policy',
  'ours',
  '--scheduling-interval',
  '1s',
  '--progress-period',
  '1s',
  '--vertical-policy',
  'specon',
  '--vertical-interval',
  '2s',
  '--flowcon-alpha',
  '0.01',
];

export const lossLine = (step: number, loss: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: loss, name: 'loss', higherIsBetter: false })}`;
export const tfConfigOf = (p: V1Pod | undefined) => p?.spec?.containers[0]?.env?.find((e) => e.name === 'TF_CONFIG')?.value;

export function speconJob(name: string, workers: number, cpu: { request: string; limit: string }, elastic: boolean, pool: Pool): TestTFJob {
  const container = {
    name: 'tensorflow',
    image: 'example.invalid/tf:2.15',
    resources: { requests: { cpu: cpu.request, memory: '1Gi' }, limits: { cpu: cpu.limit, memory: '1Gi' } },
  };
  const spec = elastic ? { elasticPolicy: { minReplicas: workers, maxReplicas: workers } } : {};
  return onPool(tfjob(name, { Worker: workers }, { spec, template: { containers: [container] } }), pool);
}

/**
 * A line a second in the logs of fast-worker-0 and slow-worker-0: fast's loss falls 5 % a line (far
 * above α for minutes), slow's 0.01 %. Returns the function that stops the writing.
 */
export async function feedFastAndSlow(ns: string): Promise<() => void> {
  const logs = new Map<string, PodLog>();
  for (const name of ['slow', 'fast']) logs.set(name, await servePodLog(ns, `${name}-worker-0`));
  let step = 0;
  const write = () => {
    step += 1;
    logs.get('fast')?.write([lossLine(step, 0.95 ** step)]);
    logs.get('slow')?.write([lossLine(step, 0.9999 ** step)]);
  };
  write();
  const writer = setInterval(write, 1_000);
  return () => {
    clearInterval(writer);
  };
}
