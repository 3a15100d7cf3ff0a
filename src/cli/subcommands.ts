// The dispatcher of a command with subcommands, each loaded lazily so a subcommand pays only for
// what it imports. Shared by `tfjob-operator` (src/cli/main.ts) and the lab's command (lab/cli/main.ts).

export type Subcommand = (argv: string[]) => Promise<number>;

export interface SubcommandEntry {
  readonly describe: string;
  readonly load: () => Promise<Subcommand>;
}

export interface CommandTable {
  /** The program's name in the usage line. */
  readonly program: string;
  readonly subcommands: Readonly<Record<string, SubcommandEntry>>;
  /** Names that are not here, with what to say instead of "unknown command". */
  readonly elsewhere?: Readonly<Record<string, string>>;
}

function usage({ program, subcommands }: CommandTable): string {
  const lines = Object.entries(subcommands).map(([name, { describe }]) => `  ${name.padEnd(10)} ${describe}`);
  return `usage: ${program} <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun \`${program} <command> --help\` for a command's options.`;
}

/** Runs the subcommand `argv[0]` with the rest; returns the exit code. */
export async function dispatch(table: CommandTable, argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage(table));
    return name === undefined ? 2 : 0;
  }
  const entry = table.subcommands[name];
  if (entry === undefined) {
    const hint = table.elsewhere?.[name];
    console.error(hint ?? `unknown command "${name}"\n\n${usage(table)}`);
    return 2;
  }
  const run = await entry.load();
  return run(rest);
}
