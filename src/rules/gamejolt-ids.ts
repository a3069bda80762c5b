/**
 * The integer id Game Jolt's API knows a board (a score table) or an
 * achievement (a trophy) by (docs/gamejolt.md): FNV-1a of its id, from
 * 100000000 to 2099999999, so a 32-bit client keeps it, it is stable for as
 * long as the record exists, and it takes no counter or write. The ids of
 * one game's tables or trophies are told apart by their own ids' hashes.
 */
/** The largest id an operator may give a table or trophy: clients keep ids in 32-bit integers. */
export const MAX_GAMEJOLT_ID = 2_147_483_647

/** The id stored for a record (an operator's, the one its builds carry), else the one made of its id. */
export function storedGamejoltId (stored: unknown, id: string): number {
  return typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 1 && stored <= MAX_GAMEJOLT_ID ? stored : gamejoltIdOf(id)
}

export function gamejoltIdOf (id: string): number {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(id, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return 100_000_000 + hash % 2_000_000_000
}
