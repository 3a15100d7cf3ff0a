// Expectations: which creates and deletes of a job the cache has yet to show, and (for the
// scheduler) whether pod creates are still in flight.
import { describe, expect, it } from 'vitest';
import { Expectations } from '../../../src/runtime/expectations.ts';

describe('Expectations', () => {
  it('is satisfied once every expected create is observed or failed, or after the TTL', () => {
    let now = 0;
    const e = new Expectations(1000, () => now);
    e.expectCreations('ns/a', ['pod/a-worker-0', 'service/a-worker-0']);
    expect(e.satisfied('ns/a')).toBe(false);
    e.creationObserved('ns/a', 'pod/a-worker-0');
    e.creationFailed('ns/a', 'service/a-worker-0');
    expect(e.satisfied('ns/a')).toBe(true);
    e.expectCreations('ns/a', ['pod/a-worker-1']);
    now = 1001;
    expect(e.satisfied('ns/a')).toBe(true);
  });

  it('tells pod creates in flight from service creates, until seen, failed or expired', () => {
    let now = 0;
    const e = new Expectations(1000, () => now);
    expect(e.creatingAny('ns/a', 'pod/')).toBe(false);
    e.expectCreations('ns/a', ['service/a-worker-0']);
    expect(e.creatingAny('ns/a', 'pod/')).toBe(false);
    e.expectCreations('ns/a', ['pod/a-worker-0']);
    expect(e.creatingAny('ns/a', 'pod/')).toBe(true);
    expect(e.creatingAny('ns/b', 'pod/')).toBe(false);
    e.creationFailed('ns/a', 'pod/a-worker-0');
    expect(e.creatingAny('ns/a', 'pod/')).toBe(false);
    e.expectCreations('ns/a', ['pod/a-worker-1']);
    now = 1001;
    expect(e.creatingAny('ns/a', 'pod/')).toBe(false);
  });
});
