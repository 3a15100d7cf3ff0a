// How the snapshot stage reads jobs and nodes under the operator's configuration.
import { canonicalAmount } from '../../../api/v1/quantity.ts';
import { elasticOptions, type OperatorConfig } from '../../config.ts';
import { labelMatcher } from '../caches.ts';
import type { DefaultRequests } from '../convert.ts';
import type { SnapshotOptions } from './snapshot.ts';

/** How the snapshot stage reads jobs and nodes under this configuration (also `tfjob-operator what-if`). */
export function snapshotOptionsOf(config: OperatorConfig): SnapshotOptions {
  const defaults: DefaultRequests = {
    cpu: canonicalAmount('cpu', config.defaultCpuRequest) ?? 100,
    memory: canonicalAmount('memory', config.defaultMemoryRequest) ?? 256 * 2 ** 20,
  };
  return {
    defaults,
    managedNode: labelMatcher(config.nodeSelector),
    replaceRefusedAfterMs: config.replaceRefusedAfter / config.timeScale,
    ...elasticOptions(config),
  };
}
