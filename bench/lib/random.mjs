// One seeded generator for the whole run, so every run picks the same players
// and scores: seeding, the seed checks and the request pools all draw from it,
// in that order.

/** A small seeded generator. */
function mulberry32 (seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const rng = mulberry32(20251122)
export const randInt = (n) => Math.floor(rng() * n)
