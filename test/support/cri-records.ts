// How containerd turns a container's stdout into CRI log records, shared by the kwok pod logs of the
// integration tests and the in-memory kubelet log of the reader's unit tests.

/** containerd's max_container_log_line_size default. */
export const CRI_RECORD_BYTES = 16 * 1024;

/**
 * `text` as records: each `\n` ends a line (its last record is full, `F`); a line longer than 16 KiB,
 * or not ended yet, becomes partial (`P`) records of 16 KiB (ASCII: 16 Ki characters).
 */
export function criSplit(text: string): { text: string; partial: boolean }[] {
  const out: { text: string; partial: boolean }[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const ended = i < lines.length - 1;
    if (!ended && line === '') return;
    for (let s = 0; ; s += CRI_RECORD_BYTES) {
      const last = s + CRI_RECORD_BYTES >= line.length;
      out.push({ text: line.slice(s, s + CRI_RECORD_BYTES), partial: !(last && ended) });
      if (last) break;
    }
  });
  return out;
}
