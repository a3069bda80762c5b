import type { FastifyInstance } from 'fastify'
import { fail, ok } from '../../errors.js'
import { optional, param, type Params } from '../../lib/params.js'
import { parseRunId } from '../../rules/fields.js'
import { parsePlayerName } from '../../rules/player-name.js'
import { rankSchemas } from './schemas.js'
import { iso } from '../../store/board-fields.js'
import type { GameRecord } from '../../rules/games.js'
import { ACHIEVEMENT_ID_PATTERN, MASKED_ACHIEVEMENT, achievementFacts } from '../../rules/achievements.js'
import type { RankActions } from './group.js'

/**
 * Registers the actions of achievements (docs/interface.md#achievements),
 * one after the other: achievements and unlock in API-key mode,
 * achievements-self and unlock-self in session mode.
 */
export function registerAchievementActions (fastify: FastifyInstance, { apiKeyAction, sessionAction }: RankActions): void {
  /**
   * The game's achievements as a player sees them (docs/interface.md#achievements):
   * each with its rarity and when the player unlocked it; a hidden one is
   * masked, every field null (its id too: an id can give it away), unless
   * the player unlocked it and the request is theirs (`own`: their session,
   * or signed by the game's server): an API key is public, and anyone could
   * read someone else's list with it. `unlocked` and `points` count what the
   * list shows, so a masked unlock is not told by the sums either.
   */
  async function achievementList (game: GameRecord, player: string | undefined, { own }: { own: boolean }) {
    const all = await fastify.achievements.achievements(game.game_id)
    const { unlocks, counts, players } = await fastify.achievements.progress(game.game_id, player, all)
    let points = 0
    let unlocked = 0
    const shown = []
    let masked = 0
    for (const achievement of all.values()) {
      const at = unlocks.get(achievement.achievement_id)
      if (achievement.hidden && (at === undefined || !own)) {
        masked++
        continue
      }
      if (at !== undefined) {
        unlocked++
        points += achievement.points
      }
      const count = counts.get(achievement.achievement_id) ?? 0
      shown.push({
        ...achievementFacts(game.game_id, achievement),
        unlocked_at: at === undefined ? null : iso(at),
        rarity: players === 0 ? 0 : Math.round(10_000 * Math.min(count, players) / players) / 100
      })
    }
    const hidden = Array.from({ length: masked }, () => ({ ...MASKED_ACHIEVEMENT, unlocked_at: null, rarity: null }))
    return { game_id: game.game_id, ...(player === undefined ? {} : { player_name: player }), players, unlocked, points, items: [...shown, ...hidden] }
  }

  /** An achievement id as a request gives it (unknown is invalid_param, by the store). */
  function achievementIdOf (fields: Params): string {
    const id = param(fields, 'achievement_id')
    if (!ACHIEVEMENT_ID_PATTERN.test(id)) fail('invalid_param', 'Parameter "achievement_id" is not valid: 1 to 32 of a-z 0-9 _ -, beginning with a letter or digit.')
    return id
  }

  /** The game unlocks an achievement for a player (with its run, where the game keeps runs): the answer says whether this request did, and when it was. */
  async function unlockFor (game: GameRecord, id: string, player: string, run: { run?: string, byKey: boolean }) {
    const done = await fastify.achievements.unlock(game.game_id, id, player, run) ?? fail('invalid_param', `Parameter "achievement_id" is not valid: this game has no achievement "${id}".`)
    return ok({ achievement_id: id, player_name: player, unlocked: done.unlocked, unlocked_at: iso(done.at) })
  }

  // Signed (optional: the text achievements in the score's place), a player's list shows the hidden ones they unlocked.
  apiKeyAction('achievements', rankSchemas.achievements, ['api_key', 'game_id'], async (fields, { game }) => {
    const name = optional(fields, 'player_name')
    const player = name === undefined ? undefined : parsePlayerName(name)
    const signed = optional(fields, 'sign') !== undefined
    return ok(await achievementList(game, player, { own: signed }))
  }, { signed: (_game, fields) => optional(fields, 'sign') !== undefined, signedAs: 'achievements' })

  sessionAction('achievements-self', rankSchemas.achievementsSelf, [], async (_fields, { game, user }) => ok(await achievementList(game, user.username, { own: true })))

  // Signed like a submit, with unlock:<achievement_id> where the score goes: a signature for one achievement unlocks no other.
  apiKeyAction('unlock', rankSchemas.unlock, ['api_key', 'game_id', 'player_name', 'achievement_id', 'ts', 'sign'], async (fields, { game }) => {
    const player = parsePlayerName(param(fields, 'player_name'))
    const id = achievementIdOf(fields)
    const run = parseRunId(optional(fields, 'run_id'))
    return await unlockFor(game, id, player, { run, byKey: true })
  }, { signed: true, signedAs: (fields: Params) => `unlock:${fields.achievement_id ?? ''}` })

  sessionAction('unlock-self', rankSchemas.unlockSelf, ['achievement_id'], async (fields, { game, user }) => {
    const id = achievementIdOf(fields)
    const run = parseRunId(optional(fields, 'run_id'))
    return await unlockFor(game, id, user.username, { run, byKey: false })
  })
}
