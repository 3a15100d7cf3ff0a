export async function main(_argv: string[]): Promise<number> {
  await Promise.resolve();
  console.error('the operator entry point is not built yet (work in progress)');
  return 1;
}
