import { existsSync } from 'node:fs'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { projectPath } from '../../lib/paths.js'
import { page } from '../../lib/html.js'
import { fileErrors } from '../play/index.js'

/** Where `npm run build` puts the console (console/vite.config.ts). */
export const CONSOLE_FILES = projectPath('dist', 'console')

/**
 * The operator console (docs/console.md): the static files Vite built from
 * console/, at /console/. Served whether or not operator tokens are set (it
 * asks for one, and the operator API answers); what it shows comes from
 * /admin with the token the operator types, kept in the tab.
 */
export default async function consoleRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.setErrorHandler(fileErrors)
  fastify.addHook('onRoute', (route) => { route.config = { ...route.config, helmet: HELMET.console } })
  fastify.get('/console', { schema: { hide: true } }, async (_request, reply) => await reply.redirect('/console/'))
  if (!existsSync(`${CONSOLE_FILES}/index.html`)) {
    // A checkout where the console was never built: say how, instead of not_found.
    fastify.get('/console/*', { schema: { hide: true } }, async (_request, reply) => {
      reply.code(503).type('text/html; charset=utf-8')
      return page('Console not built', '<main class="narrow"><h1>The console is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it), then reload.</p></main>')
    })
    return
  }
  await fastify.register(fastifyStatic, {
    root: CONSOLE_FILES,
    prefix: '/console/',
    decorateReply: false,
    index: ['index.html'],
    // The page is read afresh each time (it names the current bundle); the bundle's names change with its content.
    setHeaders (reply, path) {
      reply.header('cache-control', path.endsWith('.html') ? 'no-store' : 'public, max-age=31536000, immutable')
    }
  })
}
