import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { ApiError, fail, ok } from '../envelope.js'
import { sendError } from '../../plugins/envelope.js'
import { projectPath } from '../paths.js'
import { routeSchemas } from '../schemas.js'
import { HELMET } from '../../plugins/security-headers.js'

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
    const { statusCode, code, headers } = error as { statusCode?: number, code?: string, headers?: Record<string, string> }
    // A file that exists but whose precondition or range does not hold gets
    // the ordinary HTTP answer, as files do (DECISIONS.md section 1).
    if (statusCode === 412 || statusCode === 416) return await reply.code(statusCode).headers(headers ?? {}).send('')
    const clientFault = (statusCode !== undefined && statusCode >= 400 && statusCode < 500) || (code !== undefined && NO_SUCH_FILE.has(code))
    if (!clientFault) throw error
    request.log.debug({ code }, 'no such file')
    return sendError(reply, new ApiError('not_found'))
  })
  // A hosted game's files are framed by the play page (plugins/security-headers.ts).
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/games/')) route.config = { ...route.config, helmet: HELMET.gameFiles }
  })
  await fastify.register(fastifyStatic, { root: projectPath('public'), prefix: '/static/', allowedPath: (path) => !path.startsWith('/games/'), index: false })
  await fastify.register(fastifyStatic, { root: projectPath('public', 'games'), prefix: '/games/', decorateReply: false })
}

/** File-system answers that mean "no such file" for the path a client sent. */
const NO_SUCH_FILE = new Set(['ENAMETOOLONG', 'ENOTDIR', 'EISDIR', 'ELOOP', 'EINVAL'])

/**
 * Where to go after logging in: a path on this site, never another site
 * (`//evil.example` and `/\evil.example` are other sites to a browser).
 */
export function safeNext (next: unknown): string | undefined {
  if (typeof next !== 'string' || !/^\/(?![/\\])[^\\\s\p{Cc}]*$/u.test(next) || next.length > 500) return undefined
  return next
}

/**
 * The platform part that shows a hosted game: /play/:game_id with the game in
 * a same-origin iframe from /games/:game_id/, the board, the player's rank,
 * a rating widget and play-time reports; and /login, a page of its own,
 * because a hosted game runs on this origin and could read a password typed
 * beside it (docs/security.md). HTML, CSS and scripts, not the JSON envelope
 * (DECISIONS.md section 1).
 */
export default async function playRoutes (fastify: FastifyInstance): Promise<void> {
  await fastify.register(staticFiles)

  type WithGame = { Params: { game_id: string } }
  const pageOptions = { config: { noStore: true } }

  fastify.get<WithGame>('/play/:game_id', { schema: routeSchemas.playPage, helmet: HELMET.playPage, ...pageOptions }, async (request, reply) => {
    const gameId = request.params.game_id
    const game = await fastify.records.game(gameId)
    reply.type('text/html; charset=utf-8')
    if (game === null) {
      reply.code(404)
      return page('Game not found', '<main><h1>Game not found</h1><p>There is no game by that name.</p></main>')
    }
    const user = await fastify.currentUser(request)
    const platform = { gameId: game.game_id, username: user?.username ?? null, canSubmit: game.approved && user !== null }
    const here = `/play/${encodeURIComponent(game.game_id)}`
    const account = user === null
      ? `<p><a id="login" href="/login?next=${encodeURIComponent(here)}">Log in</a> <span class="muted">to keep your scores, rate the game and count your play time.</span></p>`
      : `<p>Logged in as <strong><bdi>${html(user.username)}</bdi></strong> <button id="logout" type="button">Log out</button></p>`
    const rating = user === null
      ? '<p class="muted">Log in to rate this game.</p>'
      : `<div class="stars" role="radiogroup" aria-label="Your rating, in half stars"></div>
  <p><button id="rating-clear" type="button">Remove my rating</button></p>`
    return page(`${game.name} — play`, `<header>
<h1><bdi>${html(game.name)}</bdi></h1>
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
<script nonce="${reply.cspNonce.script}">window.__platform = ${scriptJson(platform)}; window.__play = ${scriptJson({ playtimeReportMs: fastify.config.playtimeReportS * 1000 })}</script>
<script src="/static/play.js" defer></script>`)
  })

  fastify.get('/login', { schema: routeSchemas.loginPage, helmet: HELMET.loginPage, ...pageOptions }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next)
    const user = await fastify.currentUser(request)
    reply.type('text/html; charset=utf-8')
    const back = next === undefined ? '' : `<p><a href="${html(next)}">Back</a></p>`
    if (user !== null) {
      return page('Logged in', `<main class="narrow">
<h1>Logged in</h1>
<p>You are logged in as <strong><bdi>${html(user.username)}</bdi></strong>. <button id="logout" type="button">Log out</button></p>
${back}
</main>
<script src="/static/login.js" defer></script>`)
    }
    return page('Log in', `<main class="narrow">
<h1>Log in</h1>
<form class="login" aria-label="Log in" data-next="${html(next ?? '/login')}">
  <label>Username <input name="username" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
  <span id="login-status" role="status"></span>
</form>
${back}
</main>
<script src="/static/login.js" defer></script>`)
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
