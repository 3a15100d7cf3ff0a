#!/usr/bin/env node
// The single `tfjob-operator` command. Subcommands load their module lazily so `simulate` does not
// pay for the Kubernetes client and `run` does not pay for the simulator.

type Subcommand = (argv: string[]) => Promise<number>;

const subcommands: Record<string, { describe: string; load: () => Promise<Subcommand> }> = {
  run: { describe: 'run the operator against the current kubeconfig', load: async () => (await import('./run.ts')).main },
  simulate: { describe: 'simulate scheduling policies on a scenario', load: async () => (await import('../simulator/cli.ts')).main },
  cluster: { describe: 'start or stop the embedded local control plane', load: async () => (await import('./cluster.ts')).main },
  'what-if': {
    describe: 'what one pass of a policy would do on the live cluster now (read-only)',
    load: async () => (await import('./what-if.ts')).main,
  },
  demo: {
    describe: 'local cluster + operator + kod2-paper workload, with live progress',
    load: async () => (await import('./demo.ts')).main,
  },
};

function usage(): string {
  const lines = Object.entries(subcommands).map(([name, { describe }]) => `  ${name.padEnd(10)} ${describe}`);
  return `usage: tfjob-operator <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun \`tfjob-operator <command> --help\` for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = subcommands[name];
  if (entry === undefined) {
    console.error(`unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const run = await entry.load();
  return run(rest);
}

process.exitCode = await main(process.argv.slice(2));
