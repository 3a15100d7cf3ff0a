// docs/queues.md quotes the operator's messages; these are built by the code that writes them, so the
// documented wording cannot drift from the real one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { LABEL_QUEUE_NAME } from '../../../src/api/queues/types.ts';
import * as messages from '../../../src/operator/scheduling/messages.ts';
import { queueDirectory } from '../../../src/operator/scheduling/queues/directory.ts';
import { describeQuotaBlock, QuotaLedger } from '../../../src/scheduler/queues/quota.ts';

const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'queues.md'), 'utf8').replace(/\s+/g, ' ');
const GPU = 'nvidia.com/gpu';

describe('docs/queues.md quotes the real messages', () => {
  it('the quota wait: team-a holds 28 of its 32 GPUs, team-b borrows the other 4 at its minimum', () => {
    const ledger = new QuotaLedger(
      ['team-a', 'team-b'].map((name) => ({ name, cohort: 'research', nominalQuota: { [GPU]: 32 }, weight: 1 })),
      [],
    );
    ledger.charge('team-a', { [GPU]: 28 }, 1);
    ledger.charge('team-b', { [GPU]: 36 }, 1);
    const reason = `waiting for quota: ${describeQuotaBlock(ledger.check('team-a', { [GPU]: 4 })!)}`;
    expect(doc).toContain(`\`${reason}\``);
  });

  it("the receiver's ScaledOut event names its donor", () => {
    const text = messages.scaledOut([{ type: 'Worker', index: 3, node: 'node-1' }], 4, 8, false, [{ job: 'ns/job-a', workers: 1 }]);
    expect(doc).toContain(`\`${text}\``);
  });

  it('the namespaceSelector refusal', () => {
    const dir = queueDirectory({
      clusterQueues: () => [
        { metadata: { name: 'team-a' }, spec: { nominalQuota: { cpu: 1 }, namespaceSelector: { matchLabels: { team: 'a' } } } },
      ],
      localQueue: (namespace, name) => ({ metadata: { namespace, name }, spec: { clusterQueue: 'team-a' } }),
      namespaceLabels: () => ({ team: 'b' }),
    });
    expect(doc).toContain(`\`${dir.resolve('team-b', { [LABEL_QUEUE_NAME]: 'default' }).inadmissible ?? '(admitted)'}\``);
  });
});
