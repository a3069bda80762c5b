import { type Static } from '@sinclair/typebox'
import { fail } from '../errors.js'
import { DEFAULT_BOARD, noSuchBoard } from '../rules/boards.js'
import { MAX_ACHIEVEMENTS, iconTypeOf, MAX_ICON_BYTES, type Achievement } from '../rules/achievements.js'
import { iconEtag } from '../store/achievements.js'
import { OperationContext } from './context.js'
import type { BoardExport } from './answers.js'
import { exportHeader, unlockLines, UNLOCK_COLUMNS } from './import-export.js'
import { parsePlayerName } from '../rules/player-name.js'
import { now } from './games.js'
import { gamejoltIdOf } from '../rules/gamejolt-ids.js'
import type { GameRecord } from '../rules/games.js'
import { readInput, schemas } from './input.js'

/** Achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): a game's achievements, made, changed and deleted by operators, with their icons. */

type AchievementBody = Static<typeof schemas.updateAchievement>

/** A minimum of verified play is a run's: it needs a game that keeps runs (else no unlock could carry one). */
function checkRunMinimum (game: GameRecord, achievement: Achievement): void {
  if (achievement.min_run_seconds > 0 && game.runs === 'off') fail('invalid_param', 'Parameter "min_run_seconds" is not valid: it is a run\'s verified play, and this game keeps no runs (set its runs to optional or required first).')
}

/** A body's settings over `achievement`'s. */
function settingsOver (achievement: Achievement, body: AchievementBody): Achievement {
  const next = { ...achievement }
  if (body.name !== undefined) next.name = body.name
  if (body.description !== undefined) next.description = body.description
  if (body.points !== undefined) next.points = body.points
  if (body.hidden !== undefined) next.hidden = body.hidden
  if (body.min_run_seconds !== undefined) next.min_run_seconds = body.min_run_seconds
  if (body.difficulty !== undefined) next.difficulty = body.difficulty
  if (body.gamejolt_id !== undefined) next.gamejolt_id = body.gamejolt_id
  if (body.rule !== undefined) {
    if (body.rule === null) {
      next.rule = null
    } else {
      if ((body.rule.at_least === undefined) === (body.rule.at_most === undefined)) fail('invalid_param', 'Parameter "rule" is not valid: give one of at_least or at_most.')
      next.rule = { board: body.rule.board, at_least: body.rule.at_least ?? null, at_most: body.rule.at_most ?? null }
    }
  }
  return next
}

export function achievementsOperations ({ achievements, namedBoards, audit, existingGame, checkGamejoltIdFree }: OperationContext) {
  /** The rule's board must be the game's own or one of its named boards. */
  async function checkRuleBoard (gameId: string, achievement: Achievement): Promise<void> {
    const board = achievement.rule?.board
    if (board === undefined || board === DEFAULT_BOARD) return
    if (!(await namedBoards.boards(gameId, { fresh: true })).has(board)) throw noSuchBoard(board, 'rule')
  }

  async function existingAchievement (gameId: string, id: string): Promise<Achievement> {
    return (await achievements.achievements(gameId, { fresh: true })).get(id) ?? fail('not_found', 'No such achievement for this game.')
  }

  return {
    /**
     * The game's unlocks as a file (NDJSON or CSV): a line per player and
     * achievement, with when it was unlocked; `player_name`, `achievement_id`
     * keep those only. Streamed as it is read, in no particular order.
     */
    async exportUnlocks (gameId: string, input?: unknown): Promise<BoardExport> {
      const query = readInput(schemas.exportUnlocks, input)
      const game = await existingGame(gameId)
      const player = query.player_name === undefined ? undefined : parsePlayerName(query.player_name)
      const all = await achievements.achievements(game.game_id, { fresh: true })
      if (query.achievement_id !== undefined && !all.has(query.achievement_id)) fail('not_found', 'No such achievement for this game.')
      const format = query.format ?? 'ndjson'
      const only = query.achievement_id
      async function * body (): AsyncGenerator<string> {
        yield exportHeader(format, UNLOCK_COLUMNS)
        for await (const players of achievements.everyUnlock(game.game_id, all, player)) {
          yield unlockLines(format, players.flatMap(([name, unlocks]) => [...unlocks]
            .filter(([id]) => only === undefined || id === only)
            .map(([id, ms]) => ({ player_name: name, achievement_id: id, unlocked_at: new Date(ms).toISOString() }))))
        }
      }
      return {
        contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        filename: `${game.game_id}-unlocks.${format}`,
        body: body()
      }
    },

    /**
     * The game's achievements, in id order (all of them: at most
     * MAX_ACHIEVEMENTS), each with how many players unlocked it and its
     * rarity among the game's `players` (docs/interface.md#achievements).
     */
    async achievements (gameId: string): Promise<{ game_id: string, total: number, players: number, items: Array<Achievement & { unlocked: number, rarity: number }> }> {
      const game = await existingGame(gameId)
      const all = await achievements.achievements(game.game_id, { fresh: true })
      const { counts, players } = await achievements.progress(game.game_id, undefined, all)
      const items = [...all.values()].map(achievement => {
        const unlocked = Math.min(counts.get(achievement.achievement_id) ?? 0, players)
        return { ...achievement, unlocked, rarity: players === 0 ? 0 : Math.round(10_000 * unlocked / players) / 100 }
      })
      return { game_id: game.game_id, total: items.length, players, items }
    },

    async achievement (gameId: string, id: string): Promise<Achievement> {
      const game = await existingGame(gameId)
      return await existingAchievement(game.game_id, id)
    },

    async createAchievement (gameId: string, input: unknown): Promise<Achievement> {
      const body = readInput(schemas.createAchievement, input)
      const game = await existingGame(gameId)
      const achievement = settingsOver({ achievement_id: body.achievement_id, name: body.achievement_id, description: '', points: 0, hidden: false, rule: null, min_run_seconds: 0, difficulty: 'bronze', gamejolt_id: gamejoltIdOf(body.achievement_id), icon: null, created_at: now() }, body)
      checkRunMinimum(game, achievement)
      await checkRuleBoard(game.game_id, achievement)
      if (body.gamejolt_id !== undefined) await checkGamejoltIdFree(game, 'trophy', body.gamejolt_id, body.achievement_id)
      const made = await achievements.create(game.game_id, achievement)
      if (made === 'no_game') fail('not_found', 'No such game.')
      if (made === 'exists') fail('already_exists', `This game has an achievement "${body.achievement_id}" already.`)
      if (made === 'full') fail('invalid_param', `This game has ${MAX_ACHIEVEMENTS} achievements, the most it may have: delete one first.`)
      if (typeof made === 'string') throw new Error(`unexpected answer ${made}`)
      await audit({ action: 'achievement.create', game_id: game.game_id, target: made.achievement_id, before: null, after: made })
      return made
    },

    async updateAchievement (gameId: string, id: string, input: unknown): Promise<Achievement> {
      const body = readInput(schemas.updateAchievement, input)
      const game = await existingGame(gameId)
      // Checked before anything is written: the change as it would be made from what is stored now.
      const next = settingsOver(await existingAchievement(game.game_id, id), body)
      await checkRuleBoard(game.game_id, next)
      checkRunMinimum(game, next)
      if (body.gamejolt_id !== undefined) await checkGamejoltIdFree(game, 'trophy', body.gamejolt_id, id)
      const changed = await achievements.update(game.game_id, id, before => settingsOver(before, body))
      if (changed === 'no_achievement' || changed === 'no_game') fail('not_found', 'No such achievement for this game.')
      if (typeof changed === 'string') throw new Error(`unexpected answer ${changed}`)
      await audit({ action: 'achievement.update', game_id: game.game_id, target: id, before: changed.before, after: changed.after })
      return changed.after
    },

    /** Deletes an achievement, its icon and its count; unlocks of it no longer count (it cannot be undone). */
    async deleteAchievement (gameId: string, id: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const before = await existingAchievement(game.game_id, id)
      if (!await achievements.remove(game.game_id, id)) fail('not_found', 'No such achievement for this game.')
      await audit({ action: 'achievement.delete', game_id: game.game_id, target: id, before, after: null })
      return {}
    },

    /**
     * Takes back a player's unlock (Game Jolt's trophies/remove-achieved,
     * docs/gamejolt.md#trophies): its count and rarity follow. Whether there
     * was one to take; not_found for no such achievement.
     */
    async takeBackUnlock (gameId: string, id: string, player: string): Promise<{ taken: boolean }> {
      const game = await existingGame(gameId)
      const done = await achievements.takeBack(game.game_id, id, player) ?? fail('not_found', 'No such achievement for this game.')
      if (done.taken) await audit({ action: 'achievement.take_back', game_id: game.game_id, target: id, before: { player_name: player, unlocked_at: done.at === null ? null : new Date(done.at).toISOString() }, after: null })
      return { taken: done.taken }
    },

    /**
     * Sets an achievement's icon: an image (PNG, JPEG, GIF or WebP, known by
     * its first bytes, whatever it was sent as) of at most MAX_ICON_BYTES.
     */
    async setAchievementIcon (gameId: string, id: string, bytes: Uint8Array): Promise<Achievement> {
      const game = await existingGame(gameId)
      await existingAchievement(game.game_id, id)
      if (bytes.length === 0) fail('invalid_body', 'The icon is empty: send the image\'s bytes as the body.')
      if (bytes.length > MAX_ICON_BYTES) fail('payload_too_large', `An icon is at most ${MAX_ICON_BYTES} bytes; this one is ${bytes.length}.`)
      const type = iconTypeOf(bytes) ?? fail('invalid_body', 'The icon is not a PNG, JPEG, GIF or WebP image (read from its first bytes).')
      const icon = { content_type: type, bytes: bytes.length, etag: iconEtag(bytes) }
      const changed = await achievements.update(game.game_id, id, before => ({ ...before, icon }), bytes)
      if (typeof changed === 'string') fail('not_found', 'No such achievement for this game.')
      await audit({ action: 'achievement.icon', game_id: game.game_id, target: id, before: changed.before.icon, after: changed.after.icon })
      return changed.after
    },

    async deleteAchievementIcon (gameId: string, id: string, input?: unknown): Promise<Achievement> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      await existingAchievement(game.game_id, id)
      const changed = await achievements.update(game.game_id, id, before => ({ ...before, icon: null }), 'clear')
      if (typeof changed === 'string') fail('not_found', 'No such achievement for this game.')
      await audit({ action: 'achievement.icon', game_id: game.game_id, target: id, before: changed.before.icon, after: null })
      return changed.after
    }
  }
}
