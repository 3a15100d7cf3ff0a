// A watch for tests that wait through quiet spells: client-node's Watch ends a request after 30 s
// without data, and a test that waits out an avoidance or a SIGKILL must not miss the next event. It
// resumes from the last resourceVersion when its stream ends (from the object as it is after an ERROR,
// e.g. 410 Gone after a compaction), retrying a failed connect every 500 ms until stopped.
import { Watch } from '@kubernetes/client-node';
import { adminKubeConfig } from './kube.ts';

/** What the watch reads of each object; the caller knows (and casts to) what it watches. */
export interface Versioned {
  readonly metadata?: { readonly resourceVersion?: string };
}

/**
 * Watches `path` with `params`; each object goes to `onEvent` in the watch's own callback. Resolves once
 * the first request is open (nothing after the call is missed), with the stop function.
 */
export async function steadyWatch(
  path: string,
  params: Readonly<Record<string, string>>,
  onEvent: (type: string, obj: Versioned) => void,
): Promise<() => void> {
  let rv: string | undefined;
  let stopped = false;
  let current: AbortController | undefined;
  const connect = async (): Promise<void> => {
    const watch = new Watch(adminKubeConfig());
    // Private in client-node's typings, but what its inactivity timer reads.
    Reflect.set(watch, 'requestTimeoutMs', 2 ** 31 - 1);
    current = await watch.watch(
      path,
      { ...params, ...(rv === undefined ? {} : { resourceVersion: rv }) },
      (type: string, obj: Versioned) => {
        if (type === 'ERROR') {
          rv = undefined;
          return;
        }
        rv = obj.metadata?.resourceVersion ?? rv;
        onEvent(type, obj);
      },
      () => {
        if (!stopped) void reconnect();
      },
    );
  };
  const reconnect = async (): Promise<void> => {
    while (!stopped) {
      try {
        await connect();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  await reconnect();
  return () => {
    stopped = true;
    current?.abort();
  };
}
