import type { FastifyBaseLogger } from 'fastify'
import type { AchievementStore } from '../store/achievements.js'
import { iso } from '../store/board-fields.js'
import { MASKED_ACHIEVEMENT, achievementFacts } from '../rules/achievements.js'
import { MIN_FRAME_INTERVAL_MS, write, type Stream } from './stream.js'

/*
 * An unlocked achievement is a message of its own on the game's channel
 * ("achievement …", from lua/includes/achievements.lua): the unlocks heard
 * for a game within MIN_FRAME_INTERVAL_MS go to each of its streams as one
 * `achievement.unlocked` frame, a hidden achievement masked (a stream is
 * public: anyone with the API key may read it).
 */

/** At most this many unlocks in one frame; more within its window are only counted (`more`), so a burst cannot flood a stream. */
export const MAX_UNLOCKS_PER_FRAME = 20

/** An unlock as the channel tells it: who, when (ms), which achievements. */
type HeardUnlock = [player: string, ms: string, ids: string[]]

function heardUnlock (text: string): HeardUnlock | undefined {
  try {
    const heard = JSON.parse(text) as unknown
    if (Array.isArray(heard) && typeof heard[0] === 'string' && typeof heard[1] === 'string' && Array.isArray(heard[2]) && heard[2].every(id => typeof id === 'string')) return heard as HeardUnlock
  } catch {}
  return undefined
}

export interface UnlockOptions {
  /** The open streams, by game (the fan-out's own map: an unlock goes to those open when its frame is sent). */
  streamsOf: ReadonlyMap<string, ReadonlySet<Stream>>
  /** The games' achievements (an unlock frame names them). */
  achievements: Pick<AchievementStore, 'achievements'>
  log: FastifyBaseLogger
}

export function createUnlocks ({ streamsOf, achievements, log }: UnlockOptions) {
  /** Unlocks heard and not yet sent, by game: the first MAX_UNLOCKS_PER_FRAME (player, ms, achievement id), and how many more. */
  const unlocksOf = new Map<string, { heard: Array<[player: string, ms: string, id: string]>, more: number }>()

  /** Takes in an unlock heard on the game's channel (the message after `achievement `). */
  function heard (gameId: string, text: string): void {
    const unlock = heardUnlock(text)
    if (unlock === undefined || !streamsOf.has(gameId)) return
    const [player, ms, ids] = unlock
    let pending = unlocksOf.get(gameId)
    const first = pending === undefined
    pending ??= { heard: [], more: 0 }
    for (const id of ids) {
      if (pending.heard.length < MAX_UNLOCKS_PER_FRAME) pending.heard.push([player, ms, id])
      else pending.more++
    }
    unlocksOf.set(gameId, pending)
    if (!first) return
    setTimeout(() => {
      const { heard, more } = unlocksOf.get(gameId) ?? { heard: [], more: 0 }
      unlocksOf.delete(gameId)
      announce(gameId, heard, more).catch((error: unknown) => { log.debug({ err: error, game_id: gameId }, 'unlocks could not be sent to the live streams') })
    }, MIN_FRAME_INTERVAL_MS).unref()
  }

  /** Sends the game's streams one frame of the unlocks heard. */
  async function announce (gameId: string, heard: Array<[player: string, ms: string, id: string]>, more: number): Promise<void> {
    const streams = streamsOf.get(gameId)
    if (streams === undefined) return
    const all = await achievements.achievements(gameId)
    const items = heard.flatMap(([player, ms, id]) => {
      const achievement = all.get(id)
      if (achievement === undefined) return [] // deleted since
      const facts = achievement.hidden ? MASKED_ACHIEVEMENT : achievementFacts(gameId, achievement)
      // Never before the achievement was made (an approved held score keeps the time it was sent).
      return [{ player_name: player, ...facts, unlocked_at: iso(Math.max(Number(ms), achievement.since)) }]
    })
    if (items.length === 0) return
    const data = JSON.stringify({ game_id: gameId, items, more })
    // Never before a stream's first top (its frame sets `retry`).
    for (const stream of streams) if (stream.frames > 0) write(stream, { event: 'achievement.unlocked', data })
  }

  return { heard }
}
