// A copy of a string that does not keep the text it was cut from alive. V8 represents a substring of
// 13 characters or more as a view into its parent: a metric name or a carried segment kept per job
// would otherwise hold the whole last log read (256 KiB) for as long as the job is followed.
export function detach(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
