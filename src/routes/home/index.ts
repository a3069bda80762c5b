import type { FastifyInstance, FastifySchema } from 'fastify'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { html, page } from '../../lib/html.js'
import type { GameCard, GameSort } from '../../store/games-index.js'
import { GAME_LIST_HEADINGS, countText, playedText, ratingLabel, starsText } from '../../../sdk/game-card.js'
import { SITE_SCRIPT, siteHeader } from '../site-header.js'

/** How many games each list of the front page shows. */
export const HOME_GAMES = 6
/** The lists of the front page, in order. */
const HOME_SORTS = ['top_rated', 'most_played', 'new'] as const satisfies readonly GameSort[]

const homeSchema = { summary: 'The front page (HTML): the top-rated, most-played and new games, and where developers and operators read on', tags: ['platform'] } as FastifySchema

/** A game's card: its name (a link to its play page), its stars and ratings, its play time and players. */
function card (game: GameCard, sort: GameSort): string {
  const stars = starsText(game.weighted, 'en')
  const thisWeek = sort === 'most_played'
  const play = playedText(thisWeek ? game.recent_playtime_seconds : game.playtime_seconds, thisWeek, 'en')
  return `<li class="card">
<h3><a href="/play/${encodeURIComponent(game.game_id)}"><bdi>${html(game.name)}</bdi></a></h3>
<p class="rating" aria-label="${html(ratingLabel(game, 'en'))}">${stars === null
    ? '<span class="unrated">Not rated yet</span>'
    : `<span class="star" aria-hidden="true">★</span> <strong>${stars}</strong> <span class="muted">(${countText(game.ratings, 'rating', 'ratings', 'en')})</span>`}</p>
<p class="facts muted">${html(play)} · ${html(countText(game.players, 'player', 'players', 'en'))}</p>
</li>`
}

/**
 * GET /: the platform's front page (docs/ratings.md#the-front-page): the
 * games played here (approved, listed, with their files here), as cards in
 * three lists, read from the games index; then where developers and
 * operators read on.
 */
export default async function homeRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.get('/', { schema: homeSchema, helmet: HELMET.playPage, config: { rateLimitPolicy: 'page', noStore: true }, preHandler: fastify.limitRate }, async (request, reply) => {
    // A game played on other sites (signed submits) has no play page here: only hosted games are cards.
    const [lists, user] = await Promise.all([fastify.gamesIndex.firsts(HOME_SORTS, HOME_GAMES, game => game.hosted), fastify.currentUser(request)])
    const sections = HOME_SORTS.map(sort => {
      const id = sort.replace('_', '-')
      return `<section id="${id}" aria-labelledby="${id}-title">
<h2 id="${id}-title">${GAME_LIST_HEADINGS[sort]}</h2>
<ul class="games cards">${lists[sort].map(game => card(game, sort)).join('')}</ul>
</section>`
    })
    const games = lists.new.length === 0
      ? '<p class="muted">No games are published yet.</p>'
      : sections.join('\n')
    reply.type('text/html; charset=utf-8')
    return page('Ranking service', `${siteHeader({ user, here: '/', signupOpen: fastify.config.signup === 'open' })}
<main class="narrow home">
<h1>Ranking service</h1>
<p>Leaderboards, star ratings and play time for web games. Ratings here weigh by how long each rater really played.</p>
<div id="games">
${games}
</div>
<section aria-labelledby="developers-title">
<h2 id="developers-title">For developers and operators</h2>
<ul>
<li><a href="/console/">Operator console</a>: games, keys, boards and review, with an operator token</li>
<li><a href="/docs">API reference</a>: every action, field and error code</li>
<li><a href="/embed/">Embeds</a>: a game's board, or these lists, on any page</li>
<li><a href="/healthz">Health</a>: whether the service and its Redis answer</li>
</ul>
</section>
</main>
${SITE_SCRIPT}`)
  })
}
