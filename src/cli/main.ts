#!/usr/bin/env node
// The `tfjob-operator` command, what the image ships: the operator and a read-only look at a pass.
// The lab's commands (simulate, cluster, demo) are lab/cli/main.ts, which is not in the image.
import { dispatch } from './subcommands.ts';

const labHint = (name: string): string =>
  `"${name}" is a lab command, not part of the operator: from a source checkout run \`node lab/cli/main.ts ${name}\` (or \`hack/dev ${name}\`)`;

process.exitCode = await dispatch(
  {
    program: 'tfjob-operator',
    subcommands: {
      run: { describe: 'run the operator against the current kubeconfig', load: async () => (await import('./run.ts')).main },
      'what-if': {
        describe: 'what one pass of a policy would do on the live cluster now (read-only)',
        load: async () => (await import('./what-if.ts')).main,
      },
      dashboard: {
        describe: 'a read-only web page of the cluster, queues and TFJobs on loopback, with your RBAC',
        load: async () => (await import('./dashboard.ts')).main,
      },
    },
    elsewhere: Object.fromEntries(['simulate', 'cluster', 'demo'].map((n) => [n, labHint(n)])),
  },
  process.argv.slice(2),
);
