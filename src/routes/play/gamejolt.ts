import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { html } from '../../lib/html.js'
import { projectPath } from '../../lib/paths.js'
import { isGameId } from '../../rules/fields.js'
import type { GameRecord } from '../../rules/games.js'
import type { StoredUser } from '../../store/users.js'
import { HELMET, cspHeaderOf, withGamejoltApi, type RouteHelmet } from '../../../plugins/external/security-headers.js'
import { playSchemas } from './schemas.js'

/*
 * Hosted HTML5 builds that call Game Jolt's own address run unchanged
 * (docs/gamejolt.md#hosted-builds): the play page registers the Game Jolt
 * worker for the game's folder, which sends those calls here; the game's
 * files may make them; the frame names the player as Game Jolt's site does.
 */

/** The Game Jolt worker's address; its file is public/gamejolt-worker.js, not served under /static/. */
export const GAMEJOLT_WORKER_FILE = '/gamejolt-worker.js'

/**
 * The Game Jolt worker's script, served with what a service worker for the
 * games' folders needs: leave to control /games/ (Service-Worker-Allowed),
 * and a check for a new version on every registration (no-cache).
 */
export async function gamejoltWorker (fastify: FastifyInstance): Promise<void> {
  const script = await readFile(projectPath('public', 'gamejolt-worker.js'))
  fastify.get(GAMEJOLT_WORKER_FILE, { schema: playSchemas.gamejoltWorker, helmet: HELMET.gamejoltWorker }, async (_request, reply) => {
    return await reply.type('text/javascript; charset=utf-8').header('service-worker-allowed', '/games/').header('cache-control', 'no-cache').send(script)
  })
}

/**
 * A game with Game Jolt's API on may call Game Jolt, for the worker to
 * answer: its files' policy (`policy`, their route's) says so. Read per
 * request of a game's file (one read of the game's settings), so turning
 * the API on or off shows at once.
 */
export function gamejoltFilePolicy (fastify: FastifyInstance, policy: RouteHelmet): void {
  const csp = { http: cspHeaderOf(withGamejoltApi(policy, false)), https: cspHeaderOf(withGamejoltApi(policy, true)) }
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url?.startsWith('/games/') !== true) return
    const gameId = ((request.params as { '*'?: string })['*'] ?? '').split('/')[0] ?? ''
    if (!isGameId(gameId) || await fastify.gamejolt.ofGame(gameId) === null) return
    reply.header('content-security-policy', request.protocol === 'https' ? csp.https : csp.http)
  })
}

/**
 * The play page's frame of the game at `source`. A hosted game with Game
 * Jolt's API on is framed once the page has registered the worker for its
 * folder (public/play.js), so its address waits in data-src; it names the
 * player (a guest too) as Game Jolt's site does, gjapi_username and
 * gjapi_token, their game token made the first time. Any other frame is
 * loaded at once, as always.
 */
export async function gameFrame (fastify: FastifyInstance, request: FastifyRequest, game: GameRecord, source: string, player: StoredUser | null): Promise<string> {
  const title = html(game.name)
  if (!source.startsWith('/games/') || await fastify.gamejolt.ofGame(game.game_id) === null) return `<iframe id="game" src="${source}" title="${title}" allow="fullscreen"></iframe>`
  let address = source
  if (player !== null) {
    const asThePlayer = fastify.admin.as({ name: `player:${player.username}`, via: 'http', request_id: String(request.id) })
    const { game_token: token } = await asThePlayer.gameToken(player.username, undefined, { current: true })
    address += `?gjapi_username=${encodeURIComponent(player.username)}&gjapi_token=${encodeURIComponent(token)}`
  }
  return `<iframe id="game" data-src="${html(address)}" data-gamejolt-scope="${html(source)}" title="${title}" allow="fullscreen"></iframe>`
}
