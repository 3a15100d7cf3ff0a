// A tiny seeded PRNG (mulberry32): runs must be reproducible from --seed alone, and Math.random
// cannot be seeded.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A factor in [1 − spread, 1 + spread]; exactly 1 when spread is 0 (no draw wasted on meaning). */
export function jitterFactor(random: () => number, spread: number): number {
  return spread === 0 ? 1 : 1 + spread * (2 * random() - 1);
}
