// Command-line arguments of a benchmark script. `hack/dev bench:x -- --flag` reaches the script as
// `-- --flag` (hack/dev adds its own `--` for npm), and parseArgs would take everything after a `--`
// as positionals: a leading `--` is dropped.
export function cliArgs(): string[] {
  const args = process.argv.slice(2);
  return args[0] === '--' ? args.slice(1) : args;
}

/** `--until HH:MM` (UTC, today) as epoch ms; undefined when no deadline was given. */
export function untilDeadline(hhmm: string | undefined): number | undefined {
  if (hhmm === undefined) return undefined;
  const m = /^(\d\d):(\d\d)$/.exec(hhmm);
  if (m === null) throw new Error(`--until ${hhmm}: expected HH:MM (UTC)`);
  const d = new Date();
  d.setUTCHours(Number(m[1]), Number(m[2]), 0, 0);
  return d.getTime();
}
