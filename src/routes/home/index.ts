import type { FastifyInstance, FastifySchema } from 'fastify'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { isPlayable } from '../../rules/games.js'
import { html, page } from '../../lib/html.js'
import { gameFolders, hasFiles } from '../../lib/game-files.js'
import { SITE_SCRIPT, siteHeader } from '../site-header.js'

/** How many games the front door lists; past that it says how many more there are. */
export const HOME_GAMES = 50

const homeSchema = { summary: 'The front door (HTML): what the service is, its games, the API reference and health', tags: ['platform'] } as FastifySchema

/**
 * GET /: the front door, for a person who opens the service's address: what
 * it is, the play pages of its games that can be played here (approved, with
 * their files), and where developers and operators read on (the API
 * reference, health).
 */
export default async function homeRoutes (fastify: FastifyInstance): Promise<void> {
  const folders = gameFolders(fastify.config.demo)
  fastify.get('/', { schema: homeSchema, helmet: HELMET.playPage, config: { rateLimitPolicy: 'page', noStore: true }, preHandler: fastify.limitRate }, async (request, reply) => {
    const ids = (await fastify.records.gameIds()).sort()
    const records = (await Promise.all(ids.map(async id => await fastify.records.game(id)))).filter(isPlayable)
    // A game played on other sites (signed submits) has no play page here: only hosted games are listed.
    const hosted = await Promise.all(records.map(async game => await hasFiles(folders, game.game_id)))
    const games = records.filter((_, i) => hosted[i])
    const user = await fastify.currentUser(request)
    const shown = games.slice(0, HOME_GAMES).sort((a, b) => a.name.localeCompare(b.name))
    const list = shown.length === 0
      ? '<p class="muted">No games are published yet.</p>'
      : `<ul class="games">${shown.map(game => `<li><a href="/play/${encodeURIComponent(game.game_id)}"><bdi>${html(game.name)}</bdi></a></li>`).join('')}</ul>${
        games.length > shown.length ? `<p class="muted">and ${games.length - shown.length} more</p>` : ''}`
    reply.type('text/html; charset=utf-8')
    return page('Ranking service', `${siteHeader({ user, here: '/', signupOpen: fastify.config.signup === 'open' })}
<main class="narrow home">
<h1>Ranking service</h1>
<p>Leaderboards, star ratings and play time for web games.</p>
<section id="games" aria-labelledby="games-title">
<h2 id="games-title">Games</h2>
${list}
</section>
<section aria-labelledby="developers-title">
<h2 id="developers-title">For developers and operators</h2>
<ul>
<li><a href="/console/">Operator console</a>: games, keys, boards and review, with an operator token</li>
<li><a href="/docs">API reference</a>: every action, field and error code</li>
<li><a href="/healthz">Health</a>: whether the service and its Redis answer</li>
</ul>
</section>
</main>
${SITE_SCRIPT}`)
  })
}
