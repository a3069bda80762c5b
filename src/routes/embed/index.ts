import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { page } from '../../lib/html.js'
import { projectPath } from '../../lib/paths.js'
import { fileErrors } from '../play/index.js'

/** The versions of the elements' interface served (docs/embed.md#versions): /embed/v1/board.js and /embed/v1/games.js, and /embed/board.js and /embed/games.js for the newest. */
const EMBED_VERSIONS = ['v1']
/** How long a browser (or a CDN) keeps the element's script before asking again: a fix reaches pages within minutes. */
const EMBED_MAX_AGE_S = 300

const embedPageSchema = { summary: 'The page of examples of <ranking-board>, the board any web page can show (HTML); ?game=&api_key= fills them in', tags: ['platform'] } as FastifySchema

/**
 * <ranking-board> for any web page (docs/embed.md): its script, built by
 * scripts/build-web.mjs into dist/web/embed, which other sites' pages load
 * (so it may be loaded cross-origin), and /embed/, the page of examples with
 * snippets to copy.
 */
export default async function embedRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.setErrorHandler(fileErrors)
  fastify.addHook('onRoute', (route) => {
    // The script's routes (/embed/*, /embed/v1/*), not the page of examples.
    if (route.url.endsWith('/*')) route.config = { ...route.config, helmet: HELMET.crossOrigin }
  })
  for (const prefix of ['/embed/', ...EMBED_VERSIONS.map(version => `/embed/${version}/`)]) {
    await fastify.register(fastifyStatic, {
      root: projectPath('dist', 'web', 'embed'),
      prefix,
      allowedPath: (path) => path === '/board.js' || path === '/games.js',
      decorateReply: false,
      index: false,
      maxAge: EMBED_MAX_AGE_S * 1000
    })
  }

  fastify.get('/embed/', { schema: embedPageSchema, helmet: HELMET.loginPage, config: { rateLimitPolicy: 'page' }, preHandler: fastify.limitRate }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8')
    return page('Boards on any page — <ranking-board>', `<main class="embed-examples">
<h1>Boards on any page</h1>
<p>One script and one element show a game's board on any web page: a studio's site, a wiki, a stream overlay.
It follows the page's light or dark scheme, fits 320 px, and goes live with <code>live</code>. Every attribute,
custom property and part is in <code>docs/embed.md</code> of the service's repository.</p>
<form id="try" class="try" aria-label="Your game">
  <label>Game <input name="game" required autocomplete="off" spellcheck="false"></label>
  <label>API key <input name="api_key" required autocomplete="off" spellcheck="false"></label>
  <label>Player <input name="around" autocomplete="off" spellcheck="false" placeholder="optional"></label>
  <button type="submit">Show</button>
</form>
<p id="try-status" class="muted" role="status"></p>
<div id="examples"></div>
</main>
<link rel="stylesheet" href="/static/embed.css">
<link rel="stylesheet" href="/static/embed-theme.css">
<script src="/embed/board.js" defer></script>
<script src="/static/embed.js" defer></script>`)
  })
}
