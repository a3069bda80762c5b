import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { ApiError, fail, ok } from '../envelope.js'
import { sendError } from '../../plugins/envelope.js'
import { projectPath } from '../paths.js'
import { routeSchemas } from '../schemas.js'

/** How many entries the play page shows beside the game. */
export const PLAY_BOARD_SIZE = 10

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

function html (text: string): string {
  return text.replace(/[&<>"']/g, char => HTML_ESCAPES[char] ?? char)
}

/** JSON that is safe inside a <script> element. */
function scriptJson (value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function page (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<link rel="stylesheet" href="/static/play.css">
</head>
<body>
${body}
</body>
</html>
`
}

/**
 * The platform's files (/static/) and the hosted games (/games/<game_id>/,
 * from public/games/). A path that names no file is not_found, whatever
 * @fastify/static made of it (a forbidden path, a NUL byte, a name too long):
 * a client's mistake, not the service's, so it is logged at debug only.
 */
async function staticFiles (fastify: FastifyInstance): Promise<void> {
  fastify.setErrorHandler(async (error, request, reply) => {
    const { statusCode, code } = error as { statusCode?: number, code?: string }
    const clientFault = (statusCode !== undefined && statusCode >= 400 && statusCode < 500) || (code !== undefined && NO_SUCH_FILE.has(code))
    if (!clientFault) throw error
    request.log.debug({ code }, 'no such file')
    return sendError(reply, new ApiError('not_found'))
  })
  await fastify.register(fastifyStatic, { root: projectPath('public'), prefix: '/static/', allowedPath: (path) => !path.startsWith('/games/'), index: false })
  await fastify.register(fastifyStatic, { root: projectPath('public', 'games'), prefix: '/games/', decorateReply: false })
}

/** File-system answers that mean "no such file" for the path a client sent. */
const NO_SUCH_FILE = new Set(['ENAMETOOLONG', 'ENOTDIR', 'EISDIR', 'ELOOP', 'EINVAL'])

/**
 * The platform part that shows a hosted game: /play/:game_id with the game in
 * a same-origin iframe from /games/:game_id/, the board, the player's rank,
 * a rating widget and play-time reports. HTML, CSS and scripts, not the
 * JSON envelope (DECISIONS.md section 1).
 */
export default async function playRoutes (fastify: FastifyInstance): Promise<void> {
  await fastify.register(staticFiles)

  type WithGame = { Params: { game_id: string } }

  fastify.get<WithGame>('/play/:game_id', { schema: routeSchemas.playPage }, async (request, reply) => {
    const gameId = request.params.game_id
    const game = await fastify.records.game(gameId)
    reply.type('text/html; charset=utf-8')
    if (game === null) {
      reply.code(404)
      return page('Game not found', '<main><h1>Game not found</h1><p>There is no game by that name.</p></main>')
    }
    const user = await fastify.currentUser(request)
    const platform = { gameId: game.game_id, username: user?.username ?? null, canSubmit: game.approved && user !== null }
    const account = user === null
      ? `<form class="login" aria-label="Log in">
  <label>Username <input name="username" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
  <span id="login-status" role="status"></span>
</form>`
      : `<p>Logged in as <strong>${html(user.username)}</strong> <button id="logout" type="button">Log out</button></p>`
    const rating = user === null
      ? '<p class="muted">Log in to rate this game.</p>'
      : `<div class="stars" role="radiogroup" aria-label="Your rating, in half stars"></div>
  <p><button id="rating-clear" type="button">Remove my rating</button></p>`
    return page(`${game.name} — play`, `<header>
<h1>${html(game.name)}</h1>
${account}
</header>
<main>
<section aria-label="Game">
  <iframe id="game" src="/games/${encodeURIComponent(game.game_id)}/" title="${html(game.name)}" allow="fullscreen"></iframe>
  ${game.approved ? '' : '<p class="muted">This game is not approved yet: scores are not recorded.</p>'}
</section>
<aside>
  <section aria-labelledby="board-title">
    <h2 id="board-title">Top ${PLAY_BOARD_SIZE}</h2>
    <ol id="board"></ol>
    <p id="board-status" class="muted" role="status"></p>
    <p id="my-rank" role="status"></p>
  </section>
  <section aria-labelledby="rating-title">
    <h2 id="rating-title">Rating</h2>
    ${rating}
    <p id="rating-summary" role="status"></p>
  </section>
  <p id="playtime" class="muted" role="status"></p>
</aside>
</main>
<script>window.__platform = ${scriptJson(platform)}; window.__play = ${scriptJson({ playtimeReportMs: fastify.config.playtimeReportS * 1000 })}</script>
<script src="/static/play.js" defer></script>`)
  })

  // The board beside the game: public, like the page itself.
  fastify.get<WithGame>('/play/:game_id/board', { schema: routeSchemas.playBoard, config: { rateLimitPolicy: 'page' }, preHandler: fastify.limitRate }, async (request) => {
    const gameId = request.params.game_id
    const game = await fastify.records.game(gameId)
    if (game === null || !game.approved) fail('invalid_game')
    const { total, items } = await fastify.leaderboard.top(game.game_id, 0, PLAY_BOARD_SIZE)
    return ok({ game_id: game.game_id, total, items })
  })
}
