#!/usr/bin/env node
// The lab's command: the simulator, the embedded local control plane and the demo. None of it is in
// the operator image; it runs from a source checkout (`hack/dev simulate|cluster|demo`).
import { dispatch } from '../../src/cli/subcommands.ts';

process.exitCode = await dispatch(
  {
    program: 'node lab/cli/main.ts',
    subcommands: {
      simulate: { describe: 'simulate scheduling policies on a scenario', load: async () => (await import('../simulator/cli.ts')).main },
      cluster: { describe: 'start or stop the embedded local control plane', load: async () => (await import('./cluster.ts')).main },
      demo: {
        describe: 'local cluster + operator + kod2-paper workload, with live progress',
        load: async () => (await import('./demo.ts')).main,
      },
    },
  },
  process.argv.slice(2),
);
