// Command-line arguments of a benchmark script. `hack/dev bench:x -- --flag` reaches the script as
// `-- --flag` (hack/dev adds its own `--` for npm), and parseArgs would take everything after a `--`
// as positionals: a leading `--` is dropped.
export function cliArgs(): string[] {
  const args = process.argv.slice(2);
  return args[0] === '--' ? args.slice(1) : args;
}
