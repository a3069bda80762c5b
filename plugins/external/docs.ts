import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { errorCodeTable } from '../../src/errors.js'
import { HELMET } from './security-headers.js'

/**
 * The OpenAPI 3 document, generated from the route schemas: /docs (UI) and
 * /docs/json. /api/rank is one path whose `action` query parameter selects
 * the endpoint, so each action is listed under its own `?action=` path.
 */
export default fp(async (fastify) => {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Ranking service',
        version: '1',
        description: [
          'Leaderboards, ratings and play time for web games (interface v1).',
          '',
          'Every response is HTTP 200 with `Content-Type: application/json; charset=utf-8`:',
          '`{"ok": true, "data": {...}}` on success, `{"ok": false, "error": "<code>", "message": "<sentence>"}` on failure,',
          'including unknown routes, wrong methods, bad bodies, rate limiting and outages.',
          'POST parameters are form fields (form-encoded or multipart); GET parameters are query parameters.',
          '',
          '| code | meaning |',
          '|---|---|',
          errorCodeTable
        ].join('\n')
      },
      tags: [
        { name: 'api-key', description: 'External sites and games: api_key, and a signature on submit' },
        { name: 'session', description: 'Games in the platform iframe: the login cookie' },
        { name: 'platform', description: 'The play page' },
        { name: 'admin', description: 'Operators: Authorization: Bearer <token> (ADMIN_TOKEN, or a named token of ADMIN_TOKENS; a viewer token reads, its writes are forbidden). Listings page with cursor and next_cursor; every write is in the audit log (GET /admin/audit).' },
        { name: 'operations', description: 'Health' }
      ],
      components: {
        securitySchemes: {
          adminToken: { type: 'http', scheme: 'bearer' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: fastify.config.sessionCookie }
        }
      }
    },
    transform: ({ schema, url, route }) => {
      const action = (route.constraints as { action?: string } | undefined)?.action
      return { schema, url: action === undefined ? url : `${url}?action=${action}` }
    }
  })
  // The reference page runs its own scripts and inline styles; see plugins/external/security-headers.ts.
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, helmet: HELMET.docs }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })
}, { name: 'docs', dependencies: ['config'] })
