import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3 } from 'openapi-types'
import t from 'tap'
import { ERROR_CODES } from '../../src/errors.js'
import { buildTestApp, get } from '../helpers/app.js'

t.test('the OpenAPI document validates and covers every public route', { timeout: 40_000 }, async t => {
  const { app } = await buildTestApp(t)

  const response = await get(app, '/docs/json')
  t.equal(response.statusCode, 200)
  const document = response.json() as OpenAPIV3.Document
  await t.resolves(SwaggerParser.validate(structuredClone(document) as never), 'a validator accepts it')
  t.equal(document.openapi, '3.0.3')
  t.match(document.info.description, /Every response is HTTP 200/)
  for (const code of ERROR_CODES) t.match(document.info.description, `\`${code}\``, `the code table lists ${code}`)

  const expected: Record<string, string[]> = {
    '/api/rank?action=submit': ['post'],
    '/api/rank?action=top': ['get'],
    '/api/rank?action=me': ['get'],
    '/api/rank?action=submit-self': ['post'],
    '/api/rank?action=me-self': ['get'],
    '/api/rank?action=around': ['get'],
    '/api/rank?action=around-self': ['get'],
    '/api/rank?action=players': ['get', 'post'],
    '/api/rank?action=players-self': ['get', 'post'],
    '/api/rank?action=periods': ['get'],
    '/api/rank?action=seasons': ['get'],
    '/api/rank?action=boards': ['get'],
    '/api/rate': ['get', 'post', 'delete'],
    '/api/playtime': ['post'],
    '/auth/login': ['post'],
    '/auth/logout': ['post'],
    '/auth/challenge': ['get'],
    '/auth/signup': ['post'],
    '/auth/guest': ['post'],
    '/auth/oidc/start': ['get'],
    '/auth/oidc/callback': ['get'],
    '/auth/token': ['post'],
    '/auth/account': ['get', 'post', 'delete'],
    '/auth/sessions': ['get', 'post', 'delete'],
    '/auth/password': ['post'],
    '/healthz': ['get'],
    '/admin/games': ['get', 'post'],
    '/admin/games/{game_id}': ['get', 'patch'],
    '/admin/games/{game_id}/keys': ['get'],
    '/admin/games/{game_id}/export': ['get'],
    '/admin/games/{game_id}/import': ['post'],
    '/admin/games/{game_id}/players': ['get'],
    '/admin/games/{game_id}/audit': ['get'],
    '/admin/games/{game_id}/boards': ['get', 'post'],
    '/admin/games/{game_id}/boards/{board_id}': ['get', 'patch', 'delete'],
    '/admin/audit': ['get'],
    '/admin/games/{game_id}/seasons': ['post', 'get'],
    '/admin/games/{game_id}/unlocks': ['get'],
    '/admin/keys': ['post'],
    '/admin/keys/{api_key}': ['get', 'patch'],
    '/admin/keys/{api_key}/revoke': ['post'],
    '/admin/users': ['get', 'post'],
    '/admin/users/{username}': ['get', 'patch', 'delete'],
    '/admin/players/{player_name}': ['delete'],
    '/admin/players': ['delete'],
    '/admin/users/{username}/sessions': ['get', 'delete'],
    '/admin/sessions': ['post'],
    '/admin/sessions/{session_id}': ['delete'],
    '/admin/games/{game_id}/players/{player_name}': ['get', 'patch', 'delete'],
    '/admin/games/{game_id}/player': ['get', 'patch', 'delete'],
    '/admin/games/{game_id}/review': ['get'],
    '/admin/games/{game_id}/review/{held_id}/approve': ['post'],
    '/admin/games/{game_id}/review/{held_id}/reject': ['post'],
    '/admin/games/{game_id}/webhooks': ['post', 'get'],
    '/admin/games/{game_id}/webhooks/{webhook_id}': ['get', 'delete'],
    '/admin/games/{game_id}/webhooks/{webhook_id}/test': ['post'],
    '/admin/games/{game_id}/webhooks/{webhook_id}/deliveries': ['get'],
    '/admin/games/{game_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': ['post'],
    '/admin/games/{game_id}/events': ['get'],
    '/admin/games/{game_id}/stats': ['get'],
    '/admin/games/{game_id}/stats/scores': ['get'],
    '/admin/games/{game_id}/live': ['get'],
    '/admin/whoami': ['get'],
    '/admin/games/{game_id}/around': ['get'],
    '/admin/games/{game_id}/achievements': ['get', 'post'],
    '/admin/games/{game_id}/achievements/{achievement_id}': ['get', 'patch', 'delete'],
    '/admin/games/{game_id}/achievements/{achievement_id}/icon': ['put', 'delete'],
    '/api/rank?action=achievements': ['get'],
    '/api/rank?action=achievements-self': ['get'],
    '/api/rank?action=unlock': ['post'],
    '/api/rank?action=unlock-self': ['post'],
    '/play/{game_id}/achievements/{achievement_id}/icon': ['get'],
    '/api/rank?action=live': ['get'],
    '/api/rank?action=run-start': ['post'],
    '/api/rank?action=run-start-self': ['post'],
    '/api/rank?action=run-report': ['post'],
    '/api/rank?action=submit-run': ['post'],
    '/play/{game_id}/live': ['get'],
    '/play/{game_id}': ['get'],
    '/login': ['get'],
    '/signup': ['get'],
    '/account': ['get'],
    '/play/{game_id}/board': ['get'],
    '/play/{game_id}/unavailable': ['get'],
    '/': ['get'],
    '/embed/': ['get'],
    '/gamejolt-worker.js': ['get'],
    '/admin/games/{game_id}/gamejolt': ['get', 'put', 'delete'],
    '/admin/games/{game_id}/gamejolt/data': ['get'],
    '/admin/games/{game_id}/gamejolt/data/items': ['get'],
    '/admin/games/{game_id}/gamejolt/data/item': ['get', 'delete'],
    '/admin/games/{game_id}/ratings': ['get'],
    '/admin/games/{game_id}/ratings/{username}': ['delete'],
    '/admin/games/{game_id}/ratings/export': ['get'],
    '/admin/users/{username}/export': ['get'],
    '/admin/users/{username}/game-token': ['post'],
    '/auth/game-token': ['get', 'post'],
    '/api/game/{version}/{*}': ['get', 'post'],
    '/api/games': ['get']
  }
  t.same(Object.keys(document.paths).sort(), Object.keys(expected).sort(), 'exactly the public routes')
  for (const [path, methods] of Object.entries(expected)) {
    for (const method of methods) {
      const operation = (document.paths[path] as Record<string, OpenAPIV3.OperationObject>)[method]
      t.ok(operation, `${method.toUpperCase()} ${path} is documented`)
      // The HTML pages answer HTML, the Game Jolt worker JavaScript.
      if ((path.startsWith('/play/{game_id}') && !path.endsWith('/board') && !path.endsWith('/live')) || path === '/login' || path === '/signup' || path === '/account' || path === '/' || path === '/embed/' || path === '/gamejolt-worker.js') continue
      // Game Jolt's API answers in Game Jolt's formats, not the envelope.
      if (path.startsWith('/api/game/')) {
        t.match(operation?.description, /HTTP 200 even for a failure/, `${method.toUpperCase()} ${path} says how it answers`)
        continue
      }
      const failure = (operation?.responses.default as OpenAPIV3.ResponseObject | undefined)?.content?.['application/json']?.schema as OpenAPIV3.SchemaObject | undefined
      const codes = ((failure?.properties?.error as OpenAPIV3.SchemaObject | undefined)?.anyOf ?? []).map(option => (option as { enum?: string[] }).enum?.[0])
      t.ok(codes.includes('internal_error'), `${method.toUpperCase()} ${path} lists its error codes`)
      t.match(operation?.description, /Always HTTP 200/)
    }
  }
  const submitCodes = JSON.stringify(document.paths['/api/rank?action=submit'])
  for (const code of ['missing_param', 'rate_limited', 'invalid_key', 'key_revoked', 'invalid_game', 'key_game_mismatch', 'expired_ts', 'invalid_signature', 'invalid_player_name', 'invalid_score', 'invalid_meta']) {
    t.match(submitCodes, `"${code}"`, `submit documents ${code}`)
  }

  const ui = await get(app, '/docs')
  t.equal(ui.statusCode, 200)
  t.match(ui.headers['content-type'], /^text\/html/)
})
