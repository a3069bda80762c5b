import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { ApiError, fail, type ok } from '../errors.js'
import { collectParams, param, requireParams, type Params } from '../lib/params.js'
import { checkTimestamp } from '../rules/fields.js'
import { guestsWelcome, keyAcceptedFor, playableGame, type GameRecord, type KeyRecord } from '../rules/games.js'
import { signatureMatches } from '../rules/signature.js'
import { LimitReached, type Limits } from '../store/limits.js'
import type { StoredUser } from '../store/users.js'
import { DEFAULT_BOARD, NO_BOARDS, type Boards } from '../rules/boards.js'

/*
 * The one request path of the public actions (/api/rank, /api/rate,
 * /api/playtime), in the check order of docs/interface.md#check-order:
 *
 *   1. who asks, and the limit: an API key and its game, or a session's user
 *      and the game named by game_id (each mode's own order, below);
 *   2. the action: it reads its own fields (a bad one fails here), then
 *      makes its one call to the store and answers.
 *   3. the limits answered (the headers, or rate_limited).
 *
 * An API-key request's limits are counted inside the action's own script
 * call where the action says so (`limitsInStore`), so an accepted request
 * costs Redis one call; the store leaves their counts in the limits, and the
 * handler answers them (the headers, or rate_limited). Any other request,
 * and one refused before its store call, is counted by the handler, and
 * answered rate_limited instead when that puts it over. A session request's
 * limit is counted at step 1, before its fields are checked.
 */

/** Who sent an API-key request: the key, the playable game it belongs to (with its named boards when the request names one), and the limits its work counts. */
export interface KeyCaller { game: GameRecord, boards: Boards, key: KeyRecord, limits: Limits }

/** Who sent a session request: the logged-in user, and the playable game it names (with its named boards when the request names one). */
export interface SessionCaller { game: GameRecord, boards: Boards, user: StoredUser }

/**
 * The game's named boards, for a request that names one (`board`, not the
 * game's own): from the record cache, read with the game's record the
 * first time (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). Other requests read nothing more.
 */
async function boardsFor (fastify: FastifyInstance, fields: Params, game: GameRecord | null): Promise<Boards> {
  const named = fields.board
  if (game === null || named === undefined || named === DEFAULT_BOARD) return NO_BOARDS
  return await fastify.namedBoards.boards(game.game_id)
}

/** An answer that is a stream: opened after the request's limits are answered, as its headers go out with it (live). */
export interface Stream { open: () => Promise<void> }

/**
 * An action: reads its fields (throwing the field's error), makes its one
 * call to the store, and answers (ok), or hands back the stream to open.
 * `reply` is for the actions that set headers of their own.
 */
export type Action<Caller> = (fields: Params, caller: Caller, reply: FastifyReply) => Promise<ReturnType<typeof ok> | Stream>

export interface ApiKeyActionSpec {
  /** Checked first of all: missing_param for the first absent or empty one. */
  required: readonly string[]
  /**
   * `submit`: the timestamp and the signature, after the key and the game;
   * a function says it of the request (run-start: not for a game that allows
   * submit-run when neither is sent).
   */
  signed?: boolean | ((game: GameRecord, fields: Params) => boolean)
  /** What stands for `score` in the signed values of an action that sends none (`run-start`: the text run-start; `unlock`: unlock:<achievement_id>). */
  signedAs?: string | ((fields: Params) => string)
  /**
   * The action's store call counts the caller's limits (it takes `limits`):
   * they are answered after it. Otherwise they are counted and answered
   * before the action, which does not run when one is over.
   */
  limitsInStore?: boolean
  action: Action<KeyCaller>
}

export interface SessionActionSpec {
  /** Besides game_id, checked after the session, the Origin and the limit, before the game. */
  required: readonly string[] | ((request: FastifyRequest) => readonly string[])
  action: Action<SessionCaller>
}

/** The fields of a signed action beside its own (required already by submit's list; by run-start's only when it is signed). */
const SIGNED_FIELDS = ['ts', 'sign'] as const

/** The handler of an API-key action: missing_param; the key; the game; the signature; the fields; the work; the limits answered. */
export function apiKeyHandler (fastify: FastifyInstance, { required, signed = false, signedAs, limitsInStore = false, action }: ApiKeyActionSpec): RouteHandlerMethod {
  return async function (request: FastifyRequest, reply: FastifyReply) {
    const fields = request.fields = collectParams(request.query, request.body)
    requireParams(fields, required)
    const { key, game } = await fastify.records.keyAndGame(param(fields, 'api_key'), param(fields, 'game_id'))
    const boards = await boardsFor(fastify, fields, game)
    const limits = fastify.rateLimits.apiKey(request, key)
    let answer: Awaited<ReturnType<Action<KeyCaller>>>
    try {
      const playable = keyAcceptedFor(key, game)
      if (typeof signed === 'function' ? signed(playable, fields) : signed) {
        requireParams(fields, SIGNED_FIELDS)
        checkSignature(key as KeyRecord, playable, fields, signedAs)
        // Counted only once the signature holds: the api_key is public (top and
        // me are called from browsers), and knowing it must not be enough to use
        // up the key's share and lock its game server out.
        limits.countKeyTotal()
      }
      if (!limitsInStore) await fastify.rateLimits.settle(request, reply, limits)
      answer = await action(fields, { game: playable, boards, key: key as KeyRecord, limits }, reply)
    } catch (error) {
      // A refused request counts too (rate_limited first when it puts it
      // over), and so does one whose store call found a limit reached.
      if (!(error instanceof ApiError || error instanceof LimitReached)) throw error
      if (!request.rateLimitApplied) await fastify.rateLimits.settle(request, reply, limits)
      throw error
    }
    if (!request.rateLimitApplied) await fastify.rateLimits.settle(request, reply, limits)
    if ('open' in answer) return await answer.open()
    return answer
  }
}

/** The handler of a session action: not_logged_in; forbidden_origin; the limit; missing_param; the game; the fields; the work. */
export function sessionHandler (fastify: FastifyInstance, { required, action }: SessionActionSpec): RouteHandlerMethod {
  const requiredOf = typeof required === 'function' ? required : () => required
  return async function (request: FastifyRequest, reply: FastifyReply) {
    const fields = request.fields = collectParams(request.query, request.body)
    const user = await fastify.requireSession(request)
    await fastify.checkOrigin(request)
    await fastify.limitRate(request, reply)
    requireParams(fields, ['game_id', ...requiredOf(request)])
    const game = playableGame(await fastify.records.game(param(fields, 'game_id')))
    if (user.guest) await admitGuest(fastify, user, game)
    const answer = await action(fields, { game, boards: await boardsFor(fastify, fields, game), user }, reply)
    if ('open' in answer) return await answer.open()
    return answer
  }
}

/**
 * A guest plays only games that take guests, and each game it plays is
 * noted (docs/interface.md#guests): the first time, not where its generated
 * name is already a player's (an API-key game's player), and its play there
 * is credited from then on; on a game that keeps guests unlisted, hidden
 * before anything is stored (each time, so a second request racing the
 * first is hidden too). Guests pay one command, two when unlisted (and two
 * more the first time in a game); users none. Game Jolt's API admits a
 * guest so too (src/gamejolt/players.ts).
 */
export async function admitGuest (fastify: FastifyInstance, user: StoredUser, game: GameRecord): Promise<void> {
  guestsWelcome(game)
  if (await fastify.users.admitGuest(user.username, game.game_id)) {
    if (await fastify.leaderboard.playerKnown(game, user.username)) {
      await fastify.users.unadmitGuest(user.username, game.game_id)
      fail('forbidden', `The guest name ${user.username} is a player's in this game already: sign up to play it.`)
    }
    await fastify.playtime.startGuestClock(game.game_id, user.username)
  }
  if (game.guests === 'unlisted') await fastify.users.hideGuest(user.username, game.game_id)
}

/** `submit`: the timestamp is fresh and the signature is the key's (src/rules/signature.ts). */
function checkSignature (key: KeyRecord, game: GameRecord, fields: Params, signedAs?: string | ((fields: Params) => string)): void {
  checkTimestamp(param(fields, 'ts'))
  const signed = {
    api_key: key.api_key,
    game_id: game.game_id,
    player_name: param(fields, 'player_name'),
    score: typeof signedAs === 'function' ? signedAs(fields) : signedAs ?? param(fields, 'score'),
    ts: param(fields, 'ts'),
    // A named board is signed too, so a request cannot be sent again to another board.
    board: fields.board
  }
  if (!signatureMatches(key.secret, signed, param(fields, 'sign'))) fail('invalid_signature')
}
