import { livePlaces } from '../../live/caps.js'
import { clientAddress } from '../../../plugins/app/rate-limit.js'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, fail, ok } from '../../errors.js'
import { isPlayable, playableGame } from '../../rules/games.js'
import { html, page, scriptJson } from '../../lib/html.js'
import { SITE_SCRIPT, siteHeader } from '../site-header.js'
import { sendError } from '../../../plugins/app/envelope.js'
import { projectPath } from '../../lib/paths.js'
import { gameFolders, hasFiles } from '../../lib/game-files.js'
import type { GameRecord } from '../../rules/games.js'
import type { StoredUser } from '../../store/users.js'
import type { PeriodKind } from '../../rules/periods.js'
import { playSchemas } from './schemas.js'
import { boardFields } from '../../store/board-fields.js'
import { collectParams } from '../../lib/params.js'
import { parseBoardChoice } from '../../rules/fields.js'
import { HELMET, framedBy } from '../../../plugins/external/security-headers.js'
import { GAMEJOLT_WORKER_FILE, gameFrame, gamejoltFilePolicy, gamejoltWorker } from './gamejolt.js'
import { NO_BOARDS, type NamedBoard } from '../../rules/boards.js'
import type { ChosenBoard } from '../../store/board-choice.js'
import { scoreFormatOf } from '../../rules/score-format.js'

/** What the login page says when an OpenID Connect sign-in came back failed (/login?signin=…): fixed sentences, never the provider's text. */
const SIGNIN_FAILURES: Record<string, string> = Object.assign(Object.create(null), {
  expired: 'The sign-in took too long, or began in another browser. Please try again.',
  refused: 'The sign-in was refused or could not be checked. Please try again.',
  unavailable: 'The sign-in service cannot be reached right now. Please try again in a moment.'
})

/** On the login and sign-up pages, for a guest: what the account will keep (docs/interface.md#guests). */
function guestNote (user: StoredUser | null, doing: string): string {
  return user?.guest === true ? `<p class="muted" id="guest-note">You are playing as <strong><bdi>${html(user.username)}</bdi></strong>. ${doing} keeps that guest's scores, ratings and play time.</p>` : ''
}

/** The sign-up page's proof-of-work widget without ALTCHA's logo and link: the page is the platform's (altcha 3 reads this attribute). */
const ALTCHA_LOOK = { hideLogo: true, hideFooter: true }

/** How many entries the play page shows beside the game. */
export const PLAY_BOARD_SIZE = 10

/** The switch's name for each board a game can keep; the page's script lowercases it for the headings. */
const BOARD_NAMES: Record<'all' | PeriodKind, string> = { all: 'All time', daily: 'Today', weekly: 'This week', monthly: 'This month' }

/**
 * The switches above the board: which of the game's boards, for a game with
 * named boards (a select: the game's own, then each named board), and which
 * period of it, for a board that keeps calendar boards (All time, then the
 * kinds in the board's order; the page's script makes them again for the
 * board chosen). Nothing for a game with neither.
 */
function boardSwitch (game: GameRecord, boards: NamedBoard[]): string {
  const choose = boards.length === 0
    ? ''
    : `<p class="board-choice"><label for="board-choice">Board</label> <select id="board-choice" aria-controls="board">
      <option value="">${MAIN_BOARD}</option>
      ${boards.map(board => `<option value="${board.board_id}">${html(board.name)}</option>`).join('')}
    </select></p>`
  const periodic = game.periods.length > 0 || boards.some(board => board.periods.length > 0)
  if (!periodic) return choose
  const buttons = game.periods.length === 0 ? [] : (['all', ...game.periods] as const).map(kind => periodButton(kind, kind === 'all'))
  return `${choose}<div class="board-switch" role="group" aria-label="Which period"${buttons.length === 0 ? ' hidden' : ''}>${buttons.join('')}</div>
    <p id="board-resets" class="muted" hidden></p>`
}

/** The name the play page gives the game's own board beside its named ones. */
const MAIN_BOARD = 'Main board'

/** A button of the period switch (the page's script makes the same for another board: public/play.js). */
function periodButton (kind: 'all' | PeriodKind, pressed: boolean): string {
  return `<button type="button" data-period="${kind}" aria-pressed="${String(pressed)}" aria-controls="board">${BOARD_NAMES[kind]}</button>`
}

/**
 * The platform's files (/static/) and the hosted games (/games/<game_id>/,
 * from public/games/). A path that names no file is not_found, whatever
 * @fastify/static made of it (a forbidden path, a NUL byte, a name too long):
 * a client's mistake, not the service's, so it is logged at debug only.
 */
const ALTCHA_FILES = new Set(['/external/altcha.min.js', '/external/altcha.css', '/workers/pbkdf2.js'])
/** What dist/web serves, at /sdk/ (nothing else there: its build stamp is not a module; the element is at /embed/). */
const WEB_MODULES = new Set(['/format.js', '/platform.js'])

async function staticFiles (fastify: FastifyInstance): Promise<void> {
  fastify.setErrorHandler(fileErrors)
  // A hosted game's files are framed by the play page (plugins/external/security-headers.ts).
  const gameFilesPolicy = framedBy(HELMET.gameFiles, fastify.config.playFrameOrigins)
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/games/')) route.config = { ...route.config, helmet: gameFilesPolicy }
    // The browser modules are for other sites' pages too.
    if (route.url.startsWith('/sdk/')) route.config = { ...route.config, helmet: HELMET.crossOrigin }
  })
  // A game with Game Jolt's API on may call Game Jolt, for the worker to answer (docs/gamejolt.md#hosted-builds).
  gamejoltFilePolicy(fastify, gameFilesPolicy)
  // The Game Jolt worker has an address of its own (gamejoltWorker), not under /static/.
  await fastify.register(fastifyStatic, { root: projectPath('public'), prefix: '/static/', allowedPath: (path) => !path.startsWith('/games/') && path !== GAMEJOLT_WORKER_FILE, index: false })
  // A game's files: its folder in public/games, or the example games' build (scripts/build-web.mjs) in dist/web/games.
  await fastify.register(fastifyStatic, { root: gameFolders(fastify.config.demo), prefix: '/games/', decorateReply: false })
  // The browser modules (scripts/build-web.mjs): the score formatter and the hosted games' kit.
  await fastify.register(fastifyStatic, { root: projectPath('dist', 'web'), prefix: '/sdk/', allowedPath: (path) => WEB_MODULES.has(path), decorateReply: false, index: false })
  // The ALTCHA widget of the sign-up page, as its package ships it: the build for a strict CSP (its styles
  // in a file of their own) and the worker that solves the proof of work. Nothing else of node_modules.
  await fastify.register(fastifyStatic, {
    root: projectPath('node_modules', 'altcha', 'dist'),
    prefix: '/static/altcha/',
    allowedPath: (path) => ALTCHA_FILES.has(path),
    decorateReply: false,
    index: false
  })
}

/** The error handler of a plugin that serves files (see staticFiles). */
export async function fileErrors (this: FastifyInstance, error: Error, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { statusCode, code, headers } = error as { statusCode?: number, code?: string, headers?: Record<string, string> }
  // A file that exists but whose precondition or range does not hold gets
  // the ordinary HTTP answer, as files do (docs/interface.md#response-envelope).
  if (statusCode === 412 || statusCode === 416) return await reply.code(statusCode).headers(headers ?? {}).send('')
  const clientFault = (statusCode !== undefined && statusCode >= 400 && statusCode < 500) || (code !== undefined && NO_SUCH_FILE.has(code))
  if (!clientFault) throw error
  request.log.debug({ code }, 'no such file')
  return sendError(reply, new ApiError('not_found'))
}

/** The play page frames the game itself when it can be played, else a page that says why. */
async function frameSource (folders: string[], game: GameRecord): Promise<string> {
  const id = encodeURIComponent(game.game_id)
  return isPlayable(game) && await hasFiles(folders, game.game_id) ? `/games/${id}/` : `/play/${id}/unavailable`
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
 * a same-origin iframe from /games/:game_id/, the board (with a switch
 * between the calendar boards the game keeps), the player's rank and
 * neighbourhood, a rating widget and play-time reports; and /login, a page
 * of its own, because a hosted game runs on this origin and could read a
 * password typed beside it (docs/security.md). HTML, CSS and scripts, not the JSON envelope
 * (docs/interface.md#response-envelope).
 */
export default async function playRoutes (fastify: FastifyInstance): Promise<void> {
  await fastify.register(staticFiles)
  await fastify.register(gamejoltWorker)
  /** Where games' files are, worked out once (gameFolders). */
  const gameFiles = gameFolders(fastify.config.demo)

  type WithGame = { Params: { game_id: string } }
  const pageOptions = { config: { noStore: true } }
  // The platform's pages may frame the play page (PLAY_FRAME_ORIGINS), and the game in it.
  const playHelmet = framedBy(HELMET.playPage, fastify.config.playFrameOrigins)

  fastify.get<WithGame>('/play/:game_id', { schema: playSchemas.playPage, helmet: playHelmet, ...pageOptions }, async (request, reply) => {
    const gameId = request.params.game_id
    const game = await fastify.records.game(gameId)
    reply.type('text/html; charset=utf-8')
    if (game === null) {
      reply.code(404)
      return page('Game not found', '<main><h1>Game not found</h1><p>There is no game by that name.</p></main>')
    }
    const user = await fastify.currentUser(request)
    const playable = isPlayable(game)
    // periods: the calendar boards the game keeps, for the page's board switch; order: which end is best.
    // A guest plays only the games that take guests.
    const plays = user !== null && (!user.guest || game.guests !== 'off')
    // A visitor sees the game's average too (read here: /api/rate answers a session only).
    const rated = playable && user === null ? await fastify.ratings.read(game, '') : null
    // runs: whether the game ties scores to runs; the page adds startRun() and reportPlay() for the game (docs/interface.md#host-injected-context).
    // boards: the game's named boards, for the board switch, with the periods each keeps (docs/interface.md#named-boards).
    const boards = [...(await fastify.namedBoards.boards(game.game_id)).values()]
    const platform = { gameId: game.game_id, username: user?.username ?? null, guest: user?.guest === true, playable, canSubmit: playable && plays, rating: rated, periods: game.periods, order: game.order, format: scoreFormatOf(game), runs: game.runs, boards: boards.map(board => ({ id: board.board_id, name: board.name, periods: board.periods, order: board.order, format: scoreFormatOf(board) })), periodNames: BOARD_NAMES, achievements: (await fastify.achievements.achievements(game.game_id)).size > 0 }
    const here = `/play/${encodeURIComponent(game.game_id)}`
    const next = `next=${encodeURIComponent(here)}`
    const signup = fastify.config.signup === 'open'
    // A guest keeps its play by signing up (or logging in): it moves to the account (docs/guide.md#guests).
    // Who is logged in, and logging out, are in the header; here only what playing this game asks of them.
    const account = !playable
      ? ''
      : user === null
        ? game.guests !== 'off'
          ? `<p><button id="play-as-guest" type="button">Play as a guest</button> <span class="muted">or</span> <a id="login" href="/login?${next}">log in</a>${signup ? ` <span class="muted">or</span> <a id="signup" href="/signup?${next}">sign up</a>` : ''} <span class="muted">to keep your scores.</span> <span id="guest-status" role="status"></span></p>`
          : `<p><a id="login" href="/login?${next}">Log in</a> <span class="muted">to keep your scores, rate the game and count your play time.</span></p>`
        : user.guest
          ? `<p>Playing as <strong><bdi>${html(user.username)}</bdi></strong>, a guest until ${html(user.guest_until?.slice(0, 10) ?? '')}. ${signup ? `<a id="signup" href="/signup?${next}">Sign up</a> or <a id="login" href="/login?${next}">log in</a>` : `<a id="login" href="/login?${next}">Log in</a>`} to keep your scores.</p>`
          : ''
    // The logged-in user's neighbourhood on the board the switch chose (the page's script fills it).
    const around = !plays
      ? ''
      : `<h3 id="around-title">Around you<span class="board-period"></span></h3>
    <ol id="around" aria-labelledby="around-title"></ol>
    <p id="around-status" class="muted" role="status"></p>`
    const rating = !playable
      ? '<p class="muted">Ratings open once the game is available.</p>'
      : !plays
          ? '<p class="muted">Log in to rate this game.</p>'
          : `<div class="stars" role="radiogroup" aria-label="Your rating, in half stars"></div>
  <p><button id="rating-clear" type="button" hidden>Remove my rating</button></p>`
    // A platform's frame signs its player in with a token after the # (docs/signin.md#in-a-frame): read and
    // taken out of the address before anything else loads (the game's frame included), and only inside a frame.
    const takeToken = `<script nonce="${reply.cspNonce.script}">(() => { const token = new URLSearchParams(window.location.hash.slice(1)).get('token'); if (token === null) return; window.history.replaceState(null, '', window.location.pathname + window.location.search); window.__signinToken = window.top === window ? false : token })()</script>`
    return page(`${game.name} — play`, `${takeToken}${siteHeader({ user, here, signupOpen: signup })}
<div class="intro">
<h1><bdi>${html(game.name)}</bdi></h1>
${account}
<p id="signin-status" role="status"></p>
</div>
<main>
<section aria-label="Game">
  ${await gameFrame(fastify, request, game, await frameSource(gameFiles, game), plays ? user : null)}
</section>
<aside>
  <section aria-labelledby="board-title">
    <h2 id="board-title">Top ${PLAY_BOARD_SIZE}<span class="board-period"></span></h2>
    ${boardSwitch(game, boards)}
    <ol id="board"></ol>
    <p id="board-status" class="muted" role="status">${playable ? '' : 'The board opens once the game is available.'}</p>
    <p id="my-rank" role="status"></p>
    ${around}
  </section>
  <section aria-labelledby="rating-title">
    <h2 id="rating-title">Rating</h2>
    ${rating}
    <p id="rating-summary" role="status"></p>
  </section>
  <p id="playtime" class="muted" role="status"></p>
</aside>
</main>
<div id="toasts" role="status" aria-live="polite"></div>
<script nonce="${reply.cspNonce.script}">window.__platform = ${scriptJson(platform)}; window.__play = ${scriptJson({ playtimeReportMs: fastify.config.playtimeReportS * 1000 })}</script>
<script src="/sdk/format.js" defer></script>
<script src="/static/play.js" defer></script>
${SITE_SCRIPT}`)
  })

  /** The header of the login and sign-up pages: its links go on to where the player was going, not back here. */
  const headerOf = (user: StoredUser | null, next: string | undefined): string =>
    siteHeader({ user, here: next ?? '/', signupOpen: fastify.config.signup === 'open' })

  /** What /login and /signup show someone already logged in: who, and the way on. */
  function loggedIn (user: StoredUser, next: string | undefined): string {
    return page('Logged in', `${headerOf(user, next)}
<main class="narrow">
<h1>Logged in</h1>
<p>You are logged in as <strong><bdi>${html(user.username)}</bdi></strong>.</p>
<p><a id="continue" href="${html(next ?? '/')}">${next === undefined ? 'To the games' : 'Back'}</a> · <a href="/account">Your account</a></p>
</main>
${SITE_SCRIPT}`)
  }

  fastify.get('/login', { schema: playSchemas.loginPage, helmet: HELMET.loginPage, ...pageOptions }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next)
    const user = await fastify.currentUser(request)
    reply.type('text/html; charset=utf-8')
    const back = next === undefined ? '' : `<p><a href="${html(next)}">Back</a></p>`
    if (user !== null && !user.guest) return loggedIn(user, next)
    const signupLink = fastify.config.signup === 'open' ? `<p>New here? <a id="signup" href="/signup${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}">Sign up</a></p>` : ''
    // "Sign in with …" the platform's OpenID Connect provider (docs/signin.md#openid-connect), and why the last try failed.
    const openId = fastify.config.openId === null
      ? ''
      : `<p class="or"><span>or</span></p>
<p><a class="button" id="openid" href="/auth/oidc/start${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}">Sign in with <bdi>${html(fastify.config.openId.label)}</bdi></a></p>`
    const failure = SIGNIN_FAILURES[String((request.query as Record<string, unknown>).signin)]
    const failed = failure === undefined ? '' : `<p id="signin-failed" class="problem" role="alert">${failure}</p>`
    return page('Log in', `${headerOf(user, next)}
<main class="narrow">
<h1>Log in</h1>
${failed}
${guestNote(user, 'Logging in')}
<form class="login" aria-label="Log in" data-next="${html(next ?? '/')}">
  <label>Username <input name="username" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
  <span id="login-status" role="status"></span>
</form>
${openId}
${signupLink}
${back}
</main>
<script src="/static/login.js" defer></script>
${SITE_SCRIPT}`)
  })

  // Sign-up (docs/interface.md#sign-up): a page of its own, like login; the widget solves the proof of work meanwhile.
  fastify.get('/signup', { schema: playSchemas.signupPage, helmet: HELMET.loginPage, ...pageOptions }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next)
    const user = await fastify.currentUser(request)
    reply.type('text/html; charset=utf-8')
    const back = next === undefined ? '' : `<p><a href="${html(next)}">Back</a></p>`
    if (fastify.config.signup === 'closed') {
      return page('Sign-up is closed', `${headerOf(user, next)}<main class="narrow"><h1>Sign-up is closed</h1><p>Accounts on this service are made by its operators. <a href="/login${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}">Log in</a></p>${back}</main>${SITE_SCRIPT}`)
    }
    if (user !== null && !user.guest) return loggedIn(user, next)
    return page('Sign up', `${headerOf(user, next)}
<main class="narrow">
<h1>Sign up</h1>
${guestNote(user, 'Signing up')}
<form class="signup" aria-label="Sign up" method="post" action="/auth/signup" novalidate data-next="${html(next ?? '/')}">
  <label>Username <input name="username" autocomplete="username" required maxlength="30" pattern="[A-Za-z0-9_.\\-]{1,30}" title="1 to 30 letters, digits, _ . -"></label>
  <label>Password <input name="password" type="password" autocomplete="new-password" required minlength="8"></label>
  <p class="muted">At least 8 characters, hard to guess: a few unusual words work well.</p>
  <altcha-widget name="altcha" challenge="/auth/challenge" configuration="${html(JSON.stringify(ALTCHA_LOOK))}"></altcha-widget>
  <button type="submit">Sign up</button>
  <span id="signup-status" role="status"></span>
</form>
<p>Have an account? <a href="/login${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}">Log in</a></p>
${back}
</main>
<link rel="stylesheet" href="/static/altcha/external/altcha.css">
<script type="module" src="/static/signup.js"></script>
${SITE_SCRIPT}`)
  })

  // What the frame shows instead of a game that cannot be played: a page for people, never the JSON of a missing file.
  fastify.get<WithGame>('/play/:game_id/unavailable', { schema: playSchemas.playUnavailable, helmet: playHelmet, ...pageOptions }, async (request, reply) => {
    const game = await fastify.records.game(request.params.game_id)
    reply.type('text/html; charset=utf-8')
    const [title, text] = game === null
      ? ['Game not found', 'There is no game by that name.']
      : !isPlayable(game)
          ? ['Not available yet', 'This game is waiting for an operator to approve it. Scores are not recorded until then.']
          : await hasFiles(gameFiles, game.game_id)
            ? ['Ready', `The game is here: <a href="/games/${encodeURIComponent(game.game_id)}/">start it</a>.`]
            : ['Not installed yet', `This game has no files on this server yet. Its operator puts them in <code>public/games/${html(game.game_id)}/</code>, starting with <code>index.html</code>.`]
    return page(title, `<main class="narrow unavailable"><h1>${title}</h1><p>${text}</p></main>`)
  })

  /** The board a play page's read chooses: board (a named board, read from the record cache), period, period_id, season_id. */
  async function playBoard (game: GameRecord, query: unknown): Promise<ChosenBoard> {
    const choice = parseBoardChoice(collectParams(query as Record<string, unknown>, undefined))
    return fastify.leaderboard.choose(game, choice, choice.board === undefined ? NO_BOARDS : await fastify.namedBoards.boards(game.game_id))
  }

  // The same board, live (Server-Sent Events): the page shows each new top as it comes.
  fastify.get<WithGame>('/play/:game_id/live', { schema: playSchemas.playLive, config: { rateLimitPolicy: 'page' }, preHandler: fastify.limitRate, sse: 'manual' }, async (request, reply) => {
    const game = playableGame(await fastify.records.game(request.params.game_id))
    const chosen = await playBoard(game, request.query)
    const { total, items, board } = await fastify.leaderboard.top(game, chosen, 0, PLAY_BOARD_SIZE)
    if (request.method === 'HEAD') return ok({ game_id: game.game_id, total, items, ...await boardFields(fastify.leaderboard, game, board) })
    await fastify.live.open(reply, { game, choice: chosen.choice, limit: PLAY_BOARD_SIZE, places: livePlaces.page(clientAddress(request), fastify.config.liveStreamsPerAddress), first: { total, items }, board })
  })

  // An achievement's icon (docs/interface.md#achievements), as its type: a hidden
  // one's only with its version (v), which a player gets once they unlocked it.
  // Other sites' pages show it too (an API-key game's list gives its URL): a cross-origin resource.
  fastify.get<{ Params: { game_id: string, achievement_id: string }, Querystring: { v?: unknown } }>('/play/:game_id/achievements/:achievement_id/icon', { schema: playSchemas.achievementIcon, helmet: HELMET.crossOrigin, config: { rateLimitPolicy: 'page' }, preHandler: fastify.limitRate }, async (request, reply) => {
    const game = playableGame(await fastify.records.game(request.params.game_id))
    const achievement = (await fastify.achievements.achievements(game.game_id)).get(request.params.achievement_id)
    const version = typeof request.query.v === 'string' ? request.query.v : undefined
    const icon = achievement?.icon ?? fail('not_found', 'No such icon.')
    if (achievement?.hidden === true && version !== icon.etag) fail('not_found', 'No such icon.')
    const bytes = await fastify.achievements.icon(game.game_id, request.params.achievement_id) ?? fail('not_found', 'No such icon.')
    // The versioned URL never changes what it names; the bare one may, when the operator uploads another.
    reply.type(icon.content_type).header('etag', `"${icon.etag}"`).header('cache-control', version === icon.etag ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
    return await reply.send(bytes)
  })

  // The board beside the game: public, like the page itself.
  fastify.get<WithGame>('/play/:game_id/board', { schema: playSchemas.playBoard, config: { rateLimitPolicy: 'page' }, preHandler: fastify.limitRate }, async (request) => {
    const game = playableGame(await fastify.records.game(request.params.game_id))
    const chosen = await playBoard(game, request.query)
    const { total, items, board } = await fastify.leaderboard.top(game, chosen, 0, PLAY_BOARD_SIZE)
    return ok({ game_id: game.game_id, total, items, ...await boardFields(fastify.leaderboard, game, board) })
  })
}
