// Bad input: a seeded corpus of malformed and hostile TFJobs (wrong types, huge and negative
// counts, min > max, missing containers, unknown replica types, absurd quantities, 1,000 workers,
// names at the length limits, unicode, oversized objects, raw YAML with duplicate keys, template
// fields admission plugins refuse on every pod) submitted to the real apiserver with the operator
// running. Each input is rejected at admission with a message naming the field, or accepted and
// handled (Failed with a reason, queued with a reason, its pods refused with the TFJob field named,
// or run).
// Meanwhile a control job keeps running untouched, the operator never exits nor fails a scheduling
// pass, and a job submitted after the corpus is admitted and completes (nothing stalled).
// CI size: BAD_INPUT_COUNT (default 2,000); test/soak/bad-input.ts runs a bigger corpus.
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBadInput } from '../../support/bad-input-run.ts';
import { useSharedClusterFixture } from '../../support/fault-scenario.ts';
import { adminKubeConfig, eventually, exitPod } from '../../support/kube.ts';
import { sumOf } from '../../support/prometheus.ts';
import { onPool } from '../../support/pool.ts';
import { scenarioSeed } from '../../support/prng.ts';
import { createTFJob, jobPods, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';

const SEED = scenarioSeed(8100);
const COUNT = Number(process.env.BAD_INPUT_COUNT ?? 2_000);

describe('bad input: a hostile corpus against admission and the operator', () => {
  const fx = useSharedClusterFixture('bad-input', 'badin', {
    nodes: 2,
    node: { cpu: '8', memory: '32Gi' },
    classValue: 100_000,
    operatorArgs: ['--scheduling-interval', '1s'],
  });

  it(
    `classifies ${COUNT} hostile inputs (seed ${SEED}) without crashing or stalling the operator`,
    async () => {
      const { namespace: ns, pool, operator, highClass: controlClass } = fx;
      // The control: fixed-size (never preempted), of a class above anything in the corpus.
      await createTFJob(
        ns,
        onPool(
          tfjob(
            'control-a',
            { Worker: 2 },
            {
              restartPolicy: 'OnFailure',
              resources: { cpu: '1', memory: '1Gi' },
              runPolicy: { cleanPodPolicy: 'All', schedulingPolicy: { priorityClass: controlClass } },
            },
          ),
          pool,
        ),
      );
      const controlPods = (await waitForPods(ns, 'control-a', 2)).map((p) => p.metadata?.uid).sort();
      const checkControl = async () => {
        expect(operator.running, operator.tail()).toBe(true);
        const now = (await jobPods(ns, 'control-a')).filter(
          (p) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp === undefined,
        );
        expect(now.map((p) => p.metadata?.uid).sort()).toEqual(controlPods);
      };

      const result = await runBadInput({
        kc: adminKubeConfig(),
        namespace: ns,
        pool: pool.name,
        seed: SEED,
        count: COUNT,
        afterBatch: checkControl,
      });
      const line = `[bad-input] ${JSON.stringify({ seed: SEED, ...result })}\n`;
      process.stderr.write(line);
      if (process.env.FAULT_REPORT_FILE !== undefined && process.env.FAULT_REPORT_FILE !== '')
        appendFileSync(process.env.FAULT_REPORT_FILE, line);

      expect(result.unnamedRejections).toEqual([]);
      expect(result.reasonlessFailures).toEqual([]);
      expect(result.unhandled).toEqual([]);
      // Pod-template fields admission plugins refuse: every such job says which TFJob field, and none
      // passes for running (its pods can never be created).
      expect(result.unexplainedRefusals).toEqual([]);
      expect(result.byOutcome.refused).toBeGreaterThan(0);
      expect(result.byFamily['admission-refused']?.running ?? 0).toBe(0);
      expect(result.otherCodes).toEqual({});
      const total = Object.values(result.byOutcome).reduce((a, b) => a + b, 0);
      expect(total).toBe(COUNT);
      // The corpus really exercises both sides of admission and the operator's handling.
      expect(result.byOutcome.rejected).toBeGreaterThan(0);
      expect(result.byOutcome.running + result.byOutcome.waiting + result.byOutcome.failed).toBeGreaterThan(0);
      expect(result.clientRejected).toBeGreaterThan(0);

      // The operator never crashed, never failed a scheduling pass, never panicked in a reconcile.
      await checkControl();
      const logs = operator.messages();
      expect(logs.filter((m) => m.msg === 'Scheduling pass failed; will retry').map((m) => JSON.stringify(m.err))).toEqual([]);
      expect(logs.filter((m) => m.msg === 'Informer event handler failed')).toEqual([]);
      expect(sumOf(await operator.metrics(), 'controller_runtime_reconcile_panics_total')).toBe(0);

      // Nothing stalled: the control finishes, and a job submitted now is admitted and finishes.
      await exitPod(ns, 'control-a-worker-0', 0);
      await waitForCondition(ns, 'control-a', 'Succeeded', { timeoutMs: 60_000 });
      await createTFJob(
        ns,
        onPool(
          tfjob(
            'control-b',
            { PS: 1, Worker: 2 },
            { restartPolicy: 'OnFailure', resources: { cpu: '1', memory: '1Gi' }, runPolicy: { cleanPodPolicy: 'All' } },
          ),
          pool,
        ),
      );
      await eventually(async () => (await jobPods(ns, 'control-b')).filter((p) => p.status?.phase === 'Running').length === 3, {
        what: 'control-b running',
        timeoutMs: 120_000,
      });
      await exitPod(ns, 'control-b-worker-0', 0);
      await waitForCondition(ns, 'control-b', 'Succeeded', { timeoutMs: 60_000 });
    },
    Math.max(900_000, COUNT * 300),
  );
});
