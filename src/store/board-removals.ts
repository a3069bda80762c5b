import type { RedisClient as Redis } from './redis-client.js'
import { readPipeline } from './redis-client.js'
import { markGamesChanged } from './games-index.js'
import { keys, reviewKeys } from './keys.js'
import { TS_TOLERANCE_S } from '../rules/fields.js'
import { defineScript, luaScript } from './script-loader.js'
import { everyScopeOf } from './board-choice.js'
import { type BoardOperator } from '../rules/boards.js'
import { OUTBOX_MAX } from './events.js'
import { TIME_DIGITS } from './keys.js'
import { type ErasedFromGame } from './board-format.js'
import type { BoardOrder, GameRecord } from '../rules/games.js'
import { KEYS_PER_CALL, MAX_TOTAL, REVIEW_DECIDED_KEPT, type BoardContext } from './board-context.js'

const SET_VISIBILITY = luaScript('set-visibility', { TIME_DIGITS, OUTBOX_MAX })
const DELETE_ENTRY = luaScript('delete-entry')
const ERASE_PLAYER = luaScript('erase-player')
const PLAYER_KNOWN = luaScript('player-known')
const CLAIM_PLAYER = luaScript('claim-player', { REVIEW_DECIDED_KEPT, MAX_TOTAL })

/**
 * What is done to a player's entries on every board of a game (seasons,
 * periods, named boards): hidden and shown, deleted, erased, claimed by the
 * user a guest became, and whether the name is a player's there at all.
 */
export function createBoardRemovals ({ redis, now, freshBoards }: BoardContext) {
  const visibilityScript = defineScript<number>(redis, 'rankSetVisibility', SET_VISIBILITY, { writes: true })
  const deleteScript = defineScript<[number, number]>(redis, 'rankDeleteEntry', DELETE_ENTRY, { writes: true })
  const eraseScript = defineScript<[number, number, number, number, number, number]>(redis, 'rankErasePlayer', ERASE_PLAYER, { writes: true })
  const knownScript = defineScript<number>(redis, 'rankPlayerKnown', PLAYER_KNOWN)
  const claimScript = defineScript<[number, number, number, number, number]>(redis, 'rankClaimPlayer', CLAIM_PLAYER, { writes: true })

  /**
   * A board as the scripts that reach all of a game's boards take it (an
   * operator's hide or delete, an erasure, a guest's claim): its order and
   * operator, and the scopes of every season and period board that may
   * hold entries (everyScopeOf), with the season and the periods that would
   * begin next, in case one begins while the change is on its way.
   */
  interface EveryScope { order: BoardOrder, operator: BoardOperator, boardId: string | undefined, seasons: string[], periods: string[] }

  /** The game's own board, every season and period. */
  function everyBoard (game: GameRecord): EveryScope {
    return { order: game.order, operator: 'best', boardId: undefined, ...everyScopeOf(game, undefined, now()) }
  }

  /**
   * The game's named boards (read afresh), every season and period, in
   * groups of about KEYS_PER_CALL keys: one script call each, after the
   * default board's (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), so a game with a thousand
   * boards never blocks Redis with one call of a hundred thousand keys.
   */
  async function everyNamedBoard (game: GameRecord): Promise<EveryScope[][]> {
    const groups: EveryScope[][] = []
    let group: EveryScope[] = []
    let keyCount = 0
    for (const named of (await freshBoards(game.game_id)).values()) {
      const board = { order: named.order, operator: named.operator, boardId: named.board_id, ...everyScopeOf(game, named, now()) }
      // Keys per season and period of the largest call that walks these groups (a claim's).
      const boardKeys = 8 * board.seasons.length + 3 * board.periods.length
      if (group.length > 0 && keyCount + boardKeys > KEYS_PER_CALL) {
        groups.push(group)
        group = []
        keyCount = 0
      }
      group.push(board)
      keyCount += boardKeys
    }
    if (group.length > 0) groups.push(group)
    return groups
  }

  /** The keys removeEntries (lua/includes/remove-entries.lua) takes: every season's four, then every period's two, of the boards given. */
  function removalKeys (gameId: string, player: string, boards: EveryScope[]): string[] {
    return [
      ...boards.flatMap(board => board.seasons).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.usage(gameId, scope)]),
      ...boards.flatMap(board => board.periods).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope)])
    ]
  }

  /** The season scopes of the boards given (an entry's run is kept per season). */
  const seasonsOf = (boards: EveryScope[]): string[] => boards.flatMap(board => board.seasons)

  /**
   * Removes the player's entries from the boards given (lua/delete-entry.lua),
   * remembering when, so signed submits made before cannot bring them back.
   * Returns how many boards held one, and how many metas went.
   */
  async function removeFrom (gameId: string, player: string, boards: EveryScope[]): Promise<[number, number]> {
    // Remembered as long as a submit signed before the deletion could still arrive.
    return await deleteScript([keys.hiddenPlayers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.game(gameId), keys.boardsVersion(gameId), ...removalKeys(gameId, player, boards)],
      [player, 2 * TS_TOLERANCE_S + 1, seasonsOf(boards).length])
  }

  /**
   * Forgets the runs the player's entries came from (keys.entryRun) and
   * Game Jolt's text fields sent with them (keys.gamejoltText) on every
   * season, with whatever else `more` puts on the same pipeline: one round
   * trip, in the game's slot. After the entries' own script: a failure in
   * between leaves a run that names no entry (its ms and score match none).
   */
  async function forgetRuns (gameId: string, seasons: string[], player: string, more?: (pipeline: ReturnType<Redis['pipeline']>) => void): Promise<void> {
    await readPipeline(redis, pipeline => {
      for (const scope of seasons) pipeline.hdel(keys.entryRun(gameId, player, scope), player).hdel(keys.gamejoltText(gameId, player, scope), player)
      more?.(pipeline)
    })
  }

  /**
   * Sets or keeps ('') the player's two hidden flags (`flags`: the game's
   * own, the copy of the user's), then puts the player's entries on the
   * boards given on or off by them (lua/set-visibility.lua).
   */
  async function visibilityCall (game: GameRecord, player: string, boards: EveryScope[], flags: [string, string] = ['', '']): Promise<number> {
    const gameId = game.game_id
    return await visibilityScript(
      [keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.game(gameId), keys.events(gameId), keys.live(gameId), keys.boardsVersion(gameId),
        ...boards.flatMap(board => [...board.seasons, ...board.periods]).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope)])],
      [player, ...flags, ...boards.flatMap(board => [...board.seasons, ...board.periods].map(() => board.order))])
  }

  /** Brings the player's entries on every named board of the game in line with their hidden flags, a group of boards a call. */
  async function namedBoardsFollow (game: GameRecord, player: string): Promise<void> {
    for (const group of await everyNamedBoard(game)) await visibilityCall(game, player, group)
  }

  return {
    /**
     * Sets the game's own hidden flag of a player and/or the game's copy of
     * the user's flag (undefined keeps either), then puts the player's
     * entries on or off every board of the game. Returns false when the
     * player has no entry in the current season.
     */
    async setVisibility (game: GameRecord, player: string, flags: { boardHidden?: boolean, userHidden?: boolean }): Promise<boolean> {
      const flag = (value: boolean | undefined): string => value === undefined ? '' : value ? '1' : '0'
      // The flags change with the game's own board; each group of named boards then follows them (flags kept).
      const found = await visibilityCall(game, player, [everyBoard(game)], [flag(flags.boardHidden), flag(flags.userHidden)]) === 1
      await namedBoardsFollow(game, player)
      return found
    },

    /**
     * Erases a person from the game, in one script call: their entries on
     * every board (seasons, periods), meta, hidden flag and held scores; for a
     * user also their rating and play time, with the game's sums corrected.
     */
    async erasePlayer (game: GameRecord, player: string, { user }: { user: boolean }): Promise<ErasedFromGame> {
      const gameId = game.game_id
      const own = everyBoard(game)
      let [entries, metas, held, ratings, playtimeSeconds, achievements] = await eraseScript([
        keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), ...reviewKeys(gameId),
        keys.ratings(gameId), keys.ratingStats(gameId), keys.playtime(gameId), keys.game(gameId), keys.boardsVersion(gameId),
        keys.achievements(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId), keys.ratingPlay(gameId), keys.ratingTimes(gameId),
        ...removalKeys(gameId, player, [own])
      ], [player, 2 * TS_TOLERANCE_S + 1, own.seasons.length, user ? '1' : '0', game.rating_full_weight_seconds])
      // The named boards' entries, a group at a time, as an operator's delete removes them.
      const named = await everyNamedBoard(game)
      for (const group of named) {
        const [removed, removedMetas] = await removeFrom(gameId, player, group)
        entries += removed
        metas += removedMetas
      }
      // The player's runs go too (docs/interface.md#runs), and their entries' runs: keys of the game's slot, one round trip.
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], player, (pipeline) => {
        pipeline.del(keys.playerRuns(gameId, player), keys.runStarts(gameId, player), keys.playerRuns(gameId, player, true), keys.runStarts(gameId, player, true))
      })
      // The game's ratings, play and players moved: the games list follows.
      if (ratings > 0 || playtimeSeconds > 0) await markGamesChanged(redis, [gameId])
      return { entries, metas, held, ratings, playtimeSeconds, achievements }
    },

    /**
     * A guest's play in this game becomes `user`'s, in one script call
     * (lua/claim-player.lua): the better entry on each board, the rating
     * unless the user rated, the play time added, held scores renamed, Game
     * Jolt's text fields with the entry that stays.
     */
    async claimPlayer (game: GameRecord, guest: string, user: string): Promise<{ boards: number, rated: number, playtimeSeconds: number, held: number }> {
      const gameId = game.game_id
      const claimKeys = [keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.live(gameId), keys.ratings(gameId), keys.ratingStats(gameId), keys.playtime(gameId), ...reviewKeys(gameId), keys.boardsVersion(gameId),
        keys.achievements(gameId), keys.achieved(gameId, guest), keys.achieved(gameId, user), keys.achievementCounts(gameId), keys.ratingPlay(gameId), keys.ratingTimes(gameId)]
      const call = async (boards: EveryScope[], final: boolean): Promise<[number, number, number, number, number]> => await claimScript([...claimKeys,
        ...boards.flatMap(board => [
          ...board.seasons.flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, guest, scope), keys.entries(gameId, user, scope), keys.meta(gameId, guest, scope), keys.meta(gameId, user, scope), keys.usage(gameId, scope),
            keys.gamejoltText(gameId, guest, scope), keys.gamejoltText(gameId, user, scope)]),
          ...board.periods.flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, guest, scope), keys.entries(gameId, user, scope)])
        ])
      ], [guest, user, now(), final ? '1' : '0', game.rating_full_weight_seconds, ...boards.flatMap(board => [board.order, board.operator, board.seasons.length, board.periods.length])])
      // The named boards first, while the guest's hide is still the guest's; the final call moves it, with the rest.
      const named = await everyNamedBoard(game)
      let namedBoards = 0
      for (const group of named) namedBoards += (await call(group, false))[0]
      const own = everyBoard(game)
      const [boards, rated, playtimeSeconds, held, hidden] = await call([own], true)
      // A hide of the guest that landed after the named boards were claimed moved to the user in the final call:
      // the named boards follow it now (the entries they took were shown then).
      if (hidden === 1 && named.length > 0) await namedBoardsFollow(game, user)
      // The guest's entries moved without their runs (an entry's run belongs to the name that played it).
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], guest)
      // The game's ratings and players may have moved (two raters or players became one): the games list follows.
      if (rated > 0 || playtimeSeconds > 0) await markGamesChanged(redis, [gameId])
      return { boards: boards + namedBoards, rated, playtimeSeconds, held }
    },

    /** Whether the name is a player's in this game: an entry on any board, hidden, or a held score (a script call per group of boards). */
    async playerKnown (game: GameRecord, player: string): Promise<boolean> {
      const gameId = game.game_id
      const own = everyBoard(game)
      if (await knownScript([keys.hiddenPlayers(gameId), keys.reviewPlayers(gameId), ...[...own.seasons, ...own.periods].map(scope => keys.entries(gameId, player, scope))], [player, '']) === 1) return true
      // The named boards' seasons only: an entry on a period board has one on its season's board too (a submit
      // and an approval write both; a delete, an erasure or a claim takes both). Anyone can make this walk
      // happen (a sign-up's name check), so it stays a key per board and season, KEYS_PER_CALL a call.
      const named = [...(await freshBoards(gameId)).values()]
      const scopes = named.flatMap(board => everyScopeOf(game, board, now()).seasons)
      for (let from = 0; from === 0 || from < scopes.length; from += KEYS_PER_CALL) {
        const known = await knownScript([keys.hiddenPlayers(gameId), keys.reviewPlayers(gameId), ...scopes.slice(from, from + KEYS_PER_CALL).map(scope => keys.entries(gameId, player, scope))],
          // A held score pending on a named board: its field names the board (lua/includes/pending-field.lua).
          from === 0 ? [player, ...named.map(board => board.board_id)] : [player])
        if (known === 1) return true
        if (scopes.length === 0) break
      }
      return false
    },

    /** Deletes the player's entries from every board of the game (named boards too); false when there were none. */
    async deleteEntry (game: GameRecord, player: string): Promise<boolean> {
      const gameId = game.game_id
      const own = everyBoard(game)
      const named = await everyNamedBoard(game)
      let deleted = 0
      for (const group of [[own], ...named]) deleted += (await removeFrom(gameId, player, group))[0]
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], player)
      return deleted > 0
    }
  }
}
