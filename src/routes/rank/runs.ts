import type { FastifyInstance, FastifyReply } from 'fastify'
import { fail, ok } from '../../errors.js'
import { optional, param, type Params } from '../../lib/params.js'
import { parseRunId, parseSeconds } from '../../rules/fields.js'
import { parsePlayerName } from '../../rules/player-name.js'
import { rankSchemas } from './schemas.js'
import { runsKept, type GameRecord } from '../../rules/games.js'
import type { RankActions } from './group.js'

/**
 * The actions of a run (docs/interface.md#runs) but its score: run-start
 * and run-report in API-key mode, run-start-self in session mode (a run's
 * score is sent by submit or submit-run: ./submit.ts). The plugin
 * registers each mode's actions where they stand in the order of all
 * the actions (./index.ts).
 */
export function runActions (fastify: FastifyInstance, { apiKeyAction, sessionAction }: RankActions) {
  /** A run's start, answered as docs/interface.md#runs says; rate_limited past the player's starts of a minute. */
  async function runStarted (reply: FastifyReply, started: Awaited<ReturnType<typeof fastify.runs.start>>) {
    if ('retryAfterS' in started) {
      reply.header('retry-after', started.retryAfterS)
      fail('rate_limited', `Too many runs started in this game this minute; retry in ${started.retryAfterS} s.`)
    }
    return ok(started)
  }

  /** run-start and run-report. */
  function byKey (): void {
    // A run, started by the game's server for a player: signed like a submit, with `run-start` for the score;
    // by the browser game itself, unsigned, where the game allows submit-run.
    const unsignedRunStart = (game: GameRecord, fields: Params): boolean =>
      game.submit_run === 'on' && optional(fields, 'ts') === undefined && optional(fields, 'sign') === undefined
    apiKeyAction('run-start', rankSchemas.runStart, ['api_key', 'game_id', 'player_name'], async (fields, { game, key }, reply) => {
      const player = parsePlayerName(param(fields, 'player_name'))
      return await runStarted(reply, await fastify.runs.start(game.game_id, player, key.api_key))
    }, { signed: (game, fields) => !unsignedRunStart(game, fields), signedAs: 'run-start' })

    // The play of a run started with this key, reported by the game (unsigned: the run_id vouches, and the wall clock bounds it).
    apiKeyAction('run-report', rankSchemas.runReport, ['api_key', 'game_id', 'player_name', 'run_id', 'seconds'], async (fields, { game, key, limits }) => {
      runsKept(game)
      const player = parsePlayerName(param(fields, 'player_name'))
      const runId = parseRunId(param(fields, 'run_id')) as string
      const seconds = parseSeconds(param(fields, 'seconds'))
      return ok(await fastify.runs.report(game.game_id, player, runId, seconds, key.api_key, limits))
    }, { limitsInStore: true })
  }

  /** run-start-self. */
  function bySession (): void {
    sessionAction('run-start-self', rankSchemas.runStartSelf, [], async (_fields, { game, user }, reply) =>
      await runStarted(reply, await fastify.runs.start(game.game_id, user.username)))
  }

  return { byKey, bySession }
}
