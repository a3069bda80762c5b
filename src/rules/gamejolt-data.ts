/**
 * The limits of a game's Game Jolt data store (docs/gamejolt.md#data-store),
 * each an operator may set per game: here, so the service and the console
 * read the same defaults and ranges.
 */

/** The data store's limits when an operator sets none: safe for a shared Redis, ample for saves. */
export const DATA_LIMITS = { item_bytes: 1_048_576, items_per_user: 1000, items_per_game: 100_000, game_bytes: 268_435_456 } as const
export type DataLimits = { -readonly [K in keyof typeof DATA_LIMITS]: number }
/** The most an operator may raise each limit to: Game Jolt's own 16 MiB an item, and what one Redis slot should hold. */
export const DATA_LIMITS_MAX: DataLimits = { item_bytes: 16_777_216, items_per_user: 100_000, items_per_game: 10_000_000, game_bytes: 4_294_967_296 }
