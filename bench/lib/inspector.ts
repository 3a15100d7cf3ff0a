// The live heap of a measured process: what is still reachable after a full garbage collection.
// `nodejs_heap_size_used_bytes` at an arbitrary moment also counts garbage V8 has not collected
// yet (a scheduling pass allocates tens of MB), so two runs of the same code can differ by hundreds
// of MiB depending on when the last mark-compact ran. The process is started with
// `--inspect=127.0.0.1:<port>`; this asks V8 over the inspector protocol (Chrome DevTools Protocol)
// for a full collection, then for the heap usage. Benchmarks only: nothing ships with --inspect.

interface Target {
  readonly webSocketDebuggerUrl: string;
}

interface HeapUsage {
  /** Bytes used by live objects after the collection. */
  readonly usedBytes: number;
  /** Bytes V8 holds for the heap (used + free space inside it). */
  readonly totalBytes: number;
}

/** Inspector flag for a process whose live heap will be read on `port`. */
export function inspectFlag(port: number): string {
  return `--inspect=127.0.0.1:${port}`;
}

/** Forces a full GC in the process inspected on `port` and returns its heap usage afterwards. */
export async function liveHeap(port: number, timeoutMs = 300_000): Promise<HeapUsage> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener(
      'open',
      () => {
        resolve();
      },
      { once: true },
    );
    ws.addEventListener(
      'error',
      () => {
        reject(new Error(`inspector websocket ${url} failed`));
      },
      { once: true },
    );
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.addEventListener('message', (ev: MessageEvent) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const p = msg.id === undefined ? undefined : pending.get(msg.id);
    if (p === undefined || msg.id === undefined) return;
    pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  });
  const call = (method: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        reject(new Error(`inspector ${method}: no answer after ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const usage = (await call('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    return { usedBytes: usage.usedSize, totalBytes: usage.totalSize };
  } finally {
    ws.close();
  }
}
