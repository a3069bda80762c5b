import type { IncomingMessage } from 'node:http'
import { livePlaces } from '../../live/caps.js'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { importLines } from '../../operations/import-export.js'
import { fail, ok } from '../../errors.js'
import { requireParams } from '../../lib/params.js'
import { adminSchemas } from './schemas.js'
import { type AdminOperations } from '../../operations/index.js'
import type { BoardExport } from '../../operations/answers.js'
import { readInput, schemas, textFields } from '../../operations/input.js'
import { ICON_TYPES, MAX_ICON_BYTES } from '../../rules/achievements.js'

/** The media types of a board import: NDJSON. */
const IMPORT_TYPES = ['application/x-ndjson', 'application/jsonl']

/** The media types an icon upload may be sent as (its bytes decide what it is: rules/achievements.ts iconTypeOf). */
const ICON_UPLOAD_TYPES = [...ICON_TYPES, 'application/octet-stream']

/** Admin bodies may be up to 1 MiB (docs/interface.md#operator-api). */
export const ADMIN_BODY_LIMIT = 1_048_576

/**
 * The operator API under /admin. Registered only when an operator token is set (ADMIN_TOKEN, ADMIN_TOKENS), so
 * without it every /admin path is not_found. Each route is a thin call into
 * the admin module, which the command-line tool shares.
 */
export default async function adminRoutes (fastify: FastifyInstance): Promise<void> {
  if (fastify.config.operatorTokens.length === 0) return

  // Checked before the body is read: unauthorized comes before anything about the body.
  fastify.addHook('onRequest', fastify.requireAdmin)
  // Answers carry secrets (an api_secret, a session id) and records: never cached.
  fastify.addHook('onRoute', (route) => { route.config = { ...route.config, noStore: true } })

  // The operations as the request's operator token makes them (its name goes to the audit log).
  const admin = (request: FastifyRequest): AdminOperations => fastify.admin.as({ name: request.operator?.name ?? 'unknown', via: 'http', request_id: String(request.id) })
  // JSON keeps its types; form and multipart fields are text (see textFields).
  const input = (request: FastifyRequest): unknown => {
    // An NDJSON body is read by the import route only; anywhere else it is not a body of fields.
    if (request.body instanceof Readable) fail('invalid_body', 'This route takes JSON, form or multipart fields; NDJSON goes to an import.')
    return (request.headers['content-type'] ?? '').toLowerCase().includes('json') ? request.body : textFields(request.body)
  }
  const body = (schema: FastifySchema) => ({ bodyLimit: ADMIN_BODY_LIMIT, schema })
  type WithGame = { Params: { game_id: string } }
  type WithKey = { Params: { api_key: string } }
  type WithUser = { Params: { username: string } }
  type WithSession = { Params: { session_id: string } }
  type WithPlayer = { Params: { game_id: string, player_name: string } }
  type WithHeld = { Params: { game_id: string, held_id: string } }
  type WithWebhook = { Params: { game_id: string, webhook_id: string } }
  type WithBoard = { Params: { game_id: string, board_id: string } }
  type WithDelivery = { Params: { game_id: string, webhook_id: string, delivery_id: string } }

  const query = (request: FastifyRequest): unknown => textFields(request.query)
  // Which token this is and what it may do: the console greys out what a viewer cannot change.
  fastify.get('/admin/whoami', { schema: adminSchemas.whoami }, async (request) => ok({ name: request.operator?.name ?? 'unknown', role: request.operator?.role ?? 'viewer' }))
  fastify.get('/admin/games', { schema: adminSchemas.listGames }, async (request) => ok(await admin(request).listGames(query(request))))
  fastify.get<WithGame>('/admin/games/:game_id', { schema: adminSchemas.getGame }, async (request) => ok(await admin(request).game(request.params.game_id)))
  fastify.get<WithGame>('/admin/games/:game_id/keys', { schema: adminSchemas.listKeys }, async (request) => ok(await admin(request).listKeys(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/players', { schema: adminSchemas.listEntries }, async (request) => ok(await admin(request).listEntries(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/audit', { schema: adminSchemas.gameAudit }, async (request) => ok(await admin(request).gameAudit(request.params.game_id, query(request))))
  fastify.get<WithKey>('/admin/keys/:api_key', { schema: adminSchemas.getKey }, async (request) => ok(await admin(request).key(request.params.api_key)))
  fastify.get('/admin/users', { schema: adminSchemas.listUsers }, async (request) => ok(await admin(request).listUsers(query(request))))
  fastify.get<WithUser>('/admin/users/:username', { schema: adminSchemas.getUser }, async (request) => ok(await admin(request).user(request.params.username)))
  fastify.get<WithGame>('/admin/games/:game_id/stats', { schema: adminSchemas.gameStats }, async (request) => ok(await admin(request).stats(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/stats/scores', { schema: adminSchemas.scoreStats }, async (request) => ok(await admin(request).scoreStats(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/around', { schema: adminSchemas.adminAround }, async (request) => ok(await admin(request).around(request.params.game_id, query(request))))
  // A board's top, live, for the console (which sends the token as a header: EventSource cannot).
  fastify.get<WithGame>('/admin/games/:game_id/live', { schema: adminSchemas.adminLive, sse: 'manual' }, async (request, reply) => {
    const { game, chosen, limit, first, board, fields } = await admin(request).liveTop(request.params.game_id, query(request))
    if (request.method === 'HEAD') return ok({ game_id: game.game_id, ...first, ...fields })
    // Like every operator answer (@fastify/sse would say no-cache).
    reply.header('cache-control', 'no-store')
    await fastify.live.open(reply, { game, choice: chosen.choice, limit, places: livePlaces.operator(request.operator?.name ?? 'unknown', fastify.config.liveStreamsPerKey), first, board })
  })
  fastify.get('/admin/audit', { schema: adminSchemas.listAudit }, async (request) => ok(await admin(request).listAudit(query(request))))
  fastify.post('/admin/games', body(adminSchemas.createGame), async (request) => ok(await admin(request).createGame(input(request))))
  fastify.patch<WithGame>('/admin/games/:game_id', body(adminSchemas.updateGame), async (request) => ok(await admin(request).updateGame(request.params.game_id, input(request))))
  fastify.post<WithGame>('/admin/games/:game_id/seasons', body(adminSchemas.closeSeason), async (request) => ok(await admin(request).closeSeason(request.params.game_id, input(request))))
  fastify.get<WithGame>('/admin/games/:game_id/seasons', { schema: adminSchemas.listSeasons }, async (request) => ok(await admin(request).seasons(request.params.game_id)))
  fastify.post('/admin/keys', body(adminSchemas.createKey), async (request) => ok(await admin(request).createKey(input(request))))
  fastify.patch<WithKey>('/admin/keys/:api_key', body(adminSchemas.updateKey), async (request) => ok(await admin(request).updateKey(request.params.api_key, input(request))))
  fastify.post<WithKey>('/admin/keys/:api_key/revoke', body(adminSchemas.revokeKey), async (request) => ok(await admin(request).revokeKey(request.params.api_key, input(request))))
  fastify.post('/admin/users', body(adminSchemas.createUser), async (request) => ok(await admin(request).createUser(input(request))))
  fastify.patch<WithUser>('/admin/users/:username', body(adminSchemas.updateUser), async (request) => ok(await admin(request).updateUser(request.params.username, input(request))))
  fastify.get<WithUser>('/admin/users/:username/export', { schema: adminSchemas.exportUser }, async (request) => ok(await admin(request).userData(request.params.username)))
  fastify.get<WithUser>('/admin/users/:username/sessions', { schema: adminSchemas.userSessions }, async (request) => ok(await admin(request).userSessions(request.params.username, query(request))))
  fastify.delete<WithUser>('/admin/users/:username/sessions', body(adminSchemas.endUserSessions), async (request) => ok(await admin(request).endUserSessions(request.params.username, input(request))))
  fastify.post('/admin/sessions', body(adminSchemas.createSession), async (request) => ok(await admin(request).createSession(input(request))))
  fastify.delete<WithSession>('/admin/sessions/:session_id', body(adminSchemas.deleteSession), async (request) => ok(await admin(request).deleteSession(request.params.session_id, input(request))))
  fastify.get<WithGame>('/admin/games/:game_id/review', { schema: adminSchemas.reviewList }, async (request) => ok(await admin(request).reviewList(request.params.game_id, textFields(request.query))))
  fastify.post<WithHeld>('/admin/games/:game_id/review/:held_id/approve', body(adminSchemas.approveHeld), async (request) => ok(await admin(request).approveHeld(request.params.game_id, request.params.held_id, input(request))))
  fastify.post<WithHeld>('/admin/games/:game_id/review/:held_id/reject', body(adminSchemas.rejectHeld), async (request) => ok(await admin(request).rejectHeld(request.params.game_id, request.params.held_id, input(request))))
  // Achievements (docs/interface.md#achievements); an icon is the image's bytes as the body, read whole up to MAX_ICON_BYTES.
  type WithAchievement = { Params: { game_id: string, achievement_id: string } }
  const achievement = '/admin/games/:game_id/achievements/:achievement_id'
  fastify.get<WithGame>('/admin/games/:game_id/achievements', { schema: adminSchemas.listAchievements }, async (request) => ok(await admin(request).achievements(request.params.game_id)))
  fastify.post<WithGame>('/admin/games/:game_id/achievements', body(adminSchemas.createAchievement), async (request) => ok(await admin(request).createAchievement(request.params.game_id, input(request))))
  fastify.get<WithAchievement>(achievement, { schema: adminSchemas.getAchievement }, async (request) => ok(await admin(request).achievement(request.params.game_id, request.params.achievement_id)))
  fastify.patch<WithAchievement>(achievement, body(adminSchemas.updateAchievement), async (request) => ok(await admin(request).updateAchievement(request.params.game_id, request.params.achievement_id, input(request))))
  fastify.delete<WithAchievement>(achievement, body(adminSchemas.deleteAchievement), async (request) => ok(await admin(request).deleteAchievement(request.params.game_id, request.params.achievement_id, input(request))))
  fastify.addContentTypeParser(ICON_UPLOAD_TYPES, { parseAs: 'buffer', bodyLimit: MAX_ICON_BYTES }, (_request, payload, done) => { done(null, payload) })
  fastify.put<WithAchievement>(`${achievement}/icon`, { schema: adminSchemas.setAchievementIcon, bodyLimit: MAX_ICON_BYTES }, async (request) => {
    if (!Buffer.isBuffer(request.body)) fail('invalid_body', `An icon is the image's bytes as the body, sent as ${ICON_UPLOAD_TYPES.join(', ')}.`)
    return ok(await admin(request).setAchievementIcon(request.params.game_id, request.params.achievement_id, request.body))
  })
  fastify.delete<WithAchievement>(`${achievement}/icon`, body(adminSchemas.deleteAchievementIcon), async (request) => ok(await admin(request).deleteAchievementIcon(request.params.game_id, request.params.achievement_id, input(request))))

  const namedBoard = '/admin/games/:game_id/boards/:board_id'
  fastify.get<WithGame>('/admin/games/:game_id/boards', { schema: adminSchemas.listBoards }, async (request) => ok(await admin(request).boards(request.params.game_id)))
  fastify.post<WithGame>('/admin/games/:game_id/boards', body(adminSchemas.createBoard), async (request) => ok(await admin(request).createBoard(request.params.game_id, input(request))))
  fastify.get<WithBoard>(namedBoard, { schema: adminSchemas.getBoard }, async (request) => ok(await admin(request).board(request.params.game_id, request.params.board_id)))
  fastify.patch<WithBoard>(namedBoard, body(adminSchemas.updateBoard), async (request) => ok(await admin(request).updateBoard(request.params.game_id, request.params.board_id, input(request))))
  fastify.delete<WithBoard>(namedBoard, body(adminSchemas.deleteBoard), async (request) => ok(await admin(request).deleteBoard(request.params.game_id, request.params.board_id, input(request))))
  fastify.post<WithUser>('/admin/users/:username/game-token', body(adminSchemas.newGameToken), async (request) => ok(await admin(request).gameToken(request.params.username, input(request))))
  // A game's Game Jolt API (docs/gamejolt.md): its settings carry the private key.
  // The private key is a secret: an admin token reads it, a viewer's may not (as a viewer changes nothing with it).
  fastify.get<WithGame>('/admin/games/:game_id/gamejolt', { schema: adminSchemas.getGamejolt }, async (request) => {
    if (request.operator?.role !== 'admin') fail('forbidden', "A viewer token may not read a game's Game Jolt settings: its private key is a secret.")
    return ok(await admin(request).gamejolt(request.params.game_id))
  })
  fastify.put<WithGame>('/admin/games/:game_id/gamejolt', body(adminSchemas.setGamejolt), async (request) => ok(await admin(request).setGamejolt(request.params.game_id, input(request))))
  fastify.delete<WithGame>('/admin/games/:game_id/gamejolt', body(adminSchemas.deleteGamejolt), async (request) => ok(await admin(request).deleteGamejolt(request.params.game_id, input(request))))
  // Its data store (cloud saves): an operator lists, reads and removes items, named in the query (a key may hold any text).
  fastify.get<WithGame>('/admin/games/:game_id/gamejolt/data', { schema: adminSchemas.gamejoltData }, async (request) => ok(await admin(request).gamejoltData(request.params.game_id)))
  fastify.get<WithGame>('/admin/games/:game_id/gamejolt/data/items', { schema: adminSchemas.gamejoltDataItems }, async (request) => ok(await admin(request).gamejoltDataItems(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/gamejolt/data/item', { schema: adminSchemas.gamejoltDataItem }, async (request) => ok(await admin(request).gamejoltDataItem(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/ratings', { schema: adminSchemas.listRatings }, async (request) => ok(await admin(request).listRatings(request.params.game_id, query(request))))
  fastify.delete<{ Params: { game_id: string, username: string } }>('/admin/games/:game_id/ratings/:username', body(adminSchemas.removeRating), async (request) => ok(await admin(request).removeRating(request.params.game_id, request.params.username, input(request))))
  fastify.delete<WithGame>('/admin/games/:game_id/gamejolt/data/item', body(adminSchemas.deleteGamejoltDataItem), async (request) => ok(await admin(request).deleteGamejoltDataItem(request.params.game_id, query(request))))
  const webhook = '/admin/games/:game_id/webhooks/:webhook_id'
  fastify.post<WithGame>('/admin/games/:game_id/webhooks', body(adminSchemas.createWebhook), async (request) => ok(await admin(request).createWebhook(request.params.game_id, input(request))))
  fastify.get<WithGame>('/admin/games/:game_id/webhooks', { schema: adminSchemas.listWebhooks }, async (request) => ok(await admin(request).webhooks(request.params.game_id)))
  fastify.get<WithWebhook>(webhook, { schema: adminSchemas.getWebhook }, async (request) => ok(await admin(request).webhook(request.params.game_id, request.params.webhook_id)))
  fastify.delete<WithWebhook>(webhook, body(adminSchemas.deleteWebhook), async (request) => ok(await admin(request).deleteWebhook(request.params.game_id, request.params.webhook_id, input(request))))
  fastify.post<WithWebhook>(`${webhook}/test`, body(adminSchemas.testWebhook), async (request) => ok(await admin(request).testWebhook(request.params.game_id, request.params.webhook_id, input(request))))
  fastify.get<WithWebhook>(`${webhook}/deliveries`, { schema: adminSchemas.webhookDeliveries }, async (request) => ok(await admin(request).webhookDeliveries(request.params.game_id, request.params.webhook_id, textFields(request.query))))
  fastify.post<WithDelivery>(`${webhook}/deliveries/:delivery_id/redeliver`, body(adminSchemas.redeliver), async (request) => ok(await admin(request).redeliver(request.params.game_id, request.params.webhook_id, request.params.delivery_id, input(request))))
  fastify.get<WithGame>('/admin/games/:game_id/events', { schema: adminSchemas.listEvents }, async (request) => ok(await admin(request).events(request.params.game_id, textFields(request.query))))
  const player = '/admin/games/:game_id/players/:player_name'
  fastify.get<WithPlayer>(player, { schema: adminSchemas.getPlayer }, async (request) => ok(await admin(request).player(request.params.game_id, request.params.player_name, { board: (request.query as Record<string, unknown>).board })))
  fastify.patch<WithPlayer>(player, body(adminSchemas.setPlayer), async (request) => ok(await admin(request).setPlayer(request.params.game_id, request.params.player_name, input(request))))
  fastify.delete<WithPlayer>(player, body(adminSchemas.deletePlayer), async (request) => ok(await admin(request).deletePlayer(request.params.game_id, request.params.player_name, input(request))))

  // A board's export and the unlocks stream as they are read; an import is read as it arrives (never held whole).
  const sendFile = async (reply: FastifyReply, file: BoardExport): Promise<FastifyReply> => {
    reply.type(file.contentType).header('content-disposition', `attachment; filename="${file.filename}"`)
    return await reply.send(Readable.from(file.body))
  }
  fastify.get<WithGame>('/admin/games/:game_id/export', { schema: adminSchemas.exportBoard }, async (request, reply) => await sendFile(reply, await admin(request).exportBoard(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/unlocks', { schema: adminSchemas.exportUnlocks }, async (request, reply) => await sendFile(reply, await admin(request).exportUnlocks(request.params.game_id, query(request))))
  fastify.get<WithGame>('/admin/games/:game_id/ratings/export', { schema: adminSchemas.exportRatings }, async (request, reply) => await sendFile(reply, await admin(request).exportRatings(request.params.game_id, query(request))))
  fastify.addContentTypeParser(IMPORT_TYPES, (_request, payload, done) => { done(null, payload) })
  // Fastify refuses a declared length past bodyLimit before the handler; importLines counts what arrives.
  fastify.post<WithGame>('/admin/games/:game_id/import', { schema: adminSchemas.importBoard, bodyLimit: fastify.config.importMaxBytes }, async (request) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    if (!IMPORT_TYPES.includes(type)) fail('invalid_body', `An import is NDJSON: send it as ${IMPORT_TYPES.join(' or ')}, one entry per line.`)
    // Only board is read from the query: other parameters (a cache-buster) are let be, as before it was read.
    return ok(await admin(request).importBoard(request.params.game_id, importLines(request.body as IncomingMessage, fastify.config.importMaxBytes), { board: (request.query as Record<string, unknown>).board }))
  })

  // A player named in the query: any name, "." and ".." too.
  const named = (request: FastifyRequest): string => {
    const query = request.query as Record<string, unknown>
    requireParams(query as Record<string, string>, ['player_name'])
    if (typeof query.player_name !== 'string') fail('invalid_param', 'Parameter "player_name" must be sent once, correctly encoded.')
    return query.player_name
  }

  // Erasure: a person, everywhere (the name in the query works for any name, as below).
  fastify.delete<WithUser>('/admin/users/:username', body(adminSchemas.eraseUser), async (request) => {
    readInput(schemas.none, input(request))
    return ok(await admin(request).eraseUser(request.params.username, query(request)))
  })
  fastify.delete<{ Params: { player_name: string } }>('/admin/players/:player_name', body(adminSchemas.erasePlayer), async (request) => ok(await admin(request).erasePlayer(request.params.player_name, input(request))))
  fastify.delete('/admin/players', body(adminSchemas.erasePlayerByQuery), async (request) => ok(await admin(request).erasePlayer(named(request), input(request))))

  // Every client rewrites the path segments "." and ".." (and %2E%2E) before
  // sending, so players with those names are addressed by a query parameter.
  const byQuery = '/admin/games/:game_id/player'
  fastify.get<WithGame>(byQuery, { schema: adminSchemas.getPlayerByQuery }, async (request) => ok(await admin(request).player(request.params.game_id, named(request), { board: (request.query as Record<string, unknown>).board })))
  fastify.patch<WithGame>(byQuery, body(adminSchemas.setPlayerByQuery), async (request) => ok(await admin(request).setPlayer(request.params.game_id, named(request), input(request))))
  fastify.delete<WithGame>(byQuery, body(adminSchemas.deletePlayerByQuery), async (request) => ok(await admin(request).deletePlayer(request.params.game_id, named(request), input(request))))
}
