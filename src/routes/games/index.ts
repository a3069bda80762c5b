import cors from '@fastify/cors'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { optional } from '../../lib/params.js'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { clientAddress } from '../../../plugins/app/rate-limit.js'
import { keys } from '../../store/keys.js'
import { GAME_SORTS, type GameCard, type GameSort } from '../../store/games-index.js'
import { Nullable, envelope } from '../schemas.js'

/** Where the games list is served; its routes are registered under it (CORS answers this path only). */
export const GAMES_PATH = '/api/games'
export const GAMES_DEFAULT_LIMIT = 20
export const GAMES_MAX_LIMIT = 50

/** A listed game as GET /api/games answers it. */
export const GameItem = Type.Object({
  game_id: Type.String(),
  name: Type.String(),
  play_url: Nullable(Type.String({ description: "the game's play page here; null for a game whose files are not served here" })),
  weighted: Nullable(Type.Number({ description: 'the weighted score (docs/ratings.md), half-star units, 2 decimals; null while nobody rated' })),
  avg: Type.Number({ description: 'the plain average, half-star units, 2 decimals; 0 when none' }),
  ratings: Type.Integer({ description: 'how many ratings' }),
  distribution: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 10, maxItems: 10, description: 'how many ratings at each of 1..10 half stars' }),
  playtime_seconds: Type.Integer({ description: 'all play, every player' }),
  recent_playtime_seconds: Type.Integer({ description: 'play in the last 7 UTC days (today included)' }),
  players: Type.Integer({ description: 'the people credited any play' }),
  created_at: Type.String()
})

const gamesSchema = envelope(Type.Object({
  sort: Type.String(),
  items: Type.Array(GameItem),
  total: Type.Integer({ description: 'how many games the walk lists' }),
  next_cursor: Nullable(Type.String({ description: 'the next page of the same walk (the order of the moment it began, for at least 10 minutes); null on the last page' }))
}), ['rate_limited'], 'The listed games, ranked: top_rated (the default), most_played (last 7 days), players, new. Any origin may read it.', {
  tags: ['platform'],
  querystring: Type.Object({
    sort: Type.Optional(Type.Union(GAME_SORTS.map(sort => Type.Literal(sort)))),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: `1..${GAMES_MAX_LIMIT}, default ${GAMES_DEFAULT_LIMIT}` })),
    cursor: Type.Optional(Type.String({ description: "a page's next_cursor" }))
  })
})

function parseSort (value: string | undefined): GameSort {
  if (value === undefined) return 'top_rated'
  if (!(GAME_SORTS as readonly string[]).includes(value)) fail('invalid_param', `sort must be one of ${GAME_SORTS.join(', ')}.`)
  return value as GameSort
}

function parseGamesLimit (value: string | undefined): number {
  if (value === undefined) return GAMES_DEFAULT_LIMIT
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > GAMES_MAX_LIMIT) fail('invalid_param', `limit must be an integer from 1 to ${GAMES_MAX_LIMIT}.`)
  return Number(value)
}

/** A card as the API answers it: with the address of its play page, when it has one here. */
export function gameItem (card: GameCard, origin: string): Omit<GameCard, 'hosted'> & { play_url: string | null } {
  const { game_id: gameId, name, hosted, ...figures } = card
  return { game_id: gameId, name, play_url: hosted ? `${origin}/play/${encodeURIComponent(gameId)}` : null, ...figures }
}

/**
 * GET /api/games (docs/ratings.md#the-games-list): the public list of games,
 * readable from any origin like the embed's reads. Its one Redis call, in
 * the games index's slot, also counts the client address's rate limit
 * (the `page` limit's max, a counter of its own).
 */
export default async function gamesRoutes (fastify: FastifyInstance): Promise<void> {
  await fastify.register(cors, { origin: '*', methods: 'GET', exposedHeaders: 'Retry-After', maxAge: 86400, strictPreflight: false })
  const originOf = (request: FastifyRequest): string => fastify.config.publicOrigin ?? `${request.protocol}://${request.host}`

  fastify.get('', { schema: gamesSchema, helmet: HELMET.crossOrigin, config: { rateLimitPolicy: 'page' }, preValidation: fastify.readFields }, async (request, reply) => {
    const sort = parseSort(optional(request.fields, 'sort'))
    const limit = parseGamesLimit(optional(request.fields, 'limit'))
    const cursor = optional(request.fields, 'cursor')
    const limits = fastify.rateLimits.limitsOf('page', keys.gamesListLimitSubject(clientAddress(request)))
    const page = await fastify.gamesIndex.page(sort, { cursor, limit, limits }).catch(async (error: unknown) => {
      await fastify.rateLimits.settle(request, reply, limits)
      throw error
    })
    await fastify.rateLimits.settle(request, reply, limits)
    const origin = originOf(request)
    return ok({ sort, items: page.items.map(card => gameItem(card, origin)), total: page.total, next_cursor: page.next_cursor })
  })
}
