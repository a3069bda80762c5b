import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { toApiError } from '../../../plugins/app/envelope.js'
import { parseUrlEncoded } from '../../lib/params.js'
import { clientAddress } from '../../../plugins/app/rate-limit.js'
import { isPlayable } from '../../rules/games.js'
import { keys } from '../../store/keys.js'
import { GamejoltFailure, MESSAGES, jsonRecord, refuse, success, writeAnswer, type GamejoltAnswer, type GamejoltFormat } from '../../gamejolt/answers.js'
import type { GamejoltCall } from '../../gamejolt/call.js'
import { COUNTED_IN_SCRIPT, HANDLERS } from '../../gamejolt/endpoints.js'
import { endpointOf, formatOf, paramsOf, postFieldsOf, VERSIONS, type Endpoint, type GamejoltVersion } from '../../gamejolt/request.js'
import type { Limits } from '../../store/limits.js'
import type { GameRecord } from '../../rules/games.js'
import { gamejoltSignatureMatches } from '../../gamejolt/signature.js'
import { DATA_LIMITS, DATA_LIMITS_MAX } from '../../rules/gamejolt-data.js'

/**
 * Game Jolt's Game API, v1 to v1.2, beside ours (docs/gamejolt.md): every
 * answer in Game Jolt's formats and words, HTTP 200 even for a failure.
 * Its own encapsulated context: its own form parser (the signature covers
 * the body as sent) and its own error handler (a failure is Game Jolt's
 * `success: false`, never our envelope).
 */

/** A Game Jolt form body: a data-store item percent-encoded (up to three bytes each) and the rest of the form. */
export const formLimitOf = (itemBytes: number): number => 3 * itemBytes + 65_536
/** The most any request may send: a game's own limit (formLimitOf its item size) is checked as the body arrives. */
const GAMEJOLT_BODY_MAX = formLimitOf(DATA_LIMITS_MAX.item_bytes)

/** The most sub-requests one batch takes (Game Jolt's 50). */
export const MAX_BATCH = 50

/** A form body as it arrived: its fields in the order sent (what the signature covers). */
interface FormBody { fields: Array<[string, string]> }

declare module 'fastify' {
  interface FastifyRequest {
    /** The Game Jolt format the request asked for, once it is known. */
    gamejoltFormat?: GamejoltFormat
  }
}

function send (reply: FastifyReply, answer: GamejoltAnswer, format: GamejoltFormat): FastifyReply {
  const { body, type } = writeAnswer(answer, format)
  return reply.code(200).type(type).serializer((payload: unknown) => payload as string).send(body)
}

/** What a thrown error answers: Game Jolt's message, one of ours for a refusal of our own, or its "unknown" for a fault. */
function failureOf (error: unknown, request: FastifyRequest, fastify: FastifyInstance): GamejoltAnswer {
  if (error instanceof GamejoltFailure) return { success: false, message: error.message, ...(error.fields === undefined ? {} : { fields: error.fields }) }
  const apiError = toApiError(error, request, fastify.redis)
  if (apiError.code === 'internal_error') {
    request.log.error({ err: error }, 'unexpected error')
    return { success: false, message: MESSAGES.unknown }
  }
  if (apiError.code === 'unavailable') request.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'Redis unavailable')
  request.outcome = apiError.code
  return { success: false, message: apiError.message }
}

export default async function gamejoltRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  // The form as sent, for the signature; multipart bodies (fields only) come through @fastify/multipart.
  fastify.removeContentTypeParser(['application/x-www-form-urlencoded', 'application/json', 'text/plain'])
  // Read here, up to the limit of the game the query names (its item size, docs/gamejolt.md#data-store).
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { bodyLimit: GAMEJOLT_BODY_MAX }, async (request: FastifyRequest, payload: AsyncIterable<Buffer>): Promise<FormBody> => {
    const fields = postFieldsOf((await readBody(request, payload)).toString('utf8'))
    if (fields === null) throw new GamejoltFailure('The form body has a malformed percent-encoding.')
    return { fields }
  })
  // Anything else is read (within the same limit) as no fields: a client that sends a type with nothing in it.
  fastify.addContentTypeParser('*', { bodyLimit: GAMEJOLT_BODY_MAX }, async (request: FastifyRequest, payload: AsyncIterable<Buffer>): Promise<undefined> => {
    await readBody(request, payload)
    return undefined
  })

  /** The form limit of the game a request's query names (the default one for no such game). */
  async function formLimitFor (request: FastifyRequest): Promise<number> {
    const id = (request.query as Record<string, unknown>).game_id
    const link = typeof id === 'string' && /^\d{1,10}$/.test(id) ? await fastify.gamejolt.byGamejoltId(Number(id)) : null
    return formLimitOf(link?.data_limits.item_bytes ?? DATA_LIMITS.item_bytes)
  }

  /** A body, read up to the limit of the request's game: larger ones are refused as soon as they say so or get there. */
  async function readBody (request: FastifyRequest, payload: AsyncIterable<Buffer>): Promise<Buffer> {
    const limit = await formLimitFor(request)
    if (Number(request.headers['content-length']) > limit) tooLarge(limit)
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of payload) {
      size += chunk.length
      if (size > limit) tooLarge(limit)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks)
  }

  /** Refuses a body past the limit; the rest of it is not read, so the connection closes after the answer. */
  function tooLarge (limit: number): never {
    throw Object.assign(new GamejoltFailure(`The request body is larger than this game takes (${limit} bytes); an operator can raise the data store's item size.`), { closeConnection: true })
  }

  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    if ((error as { closeConnection?: boolean }).closeConnection === true) reply.header('connection', 'close')
    return send(reply, failureOf(error, request, fastify), request.gamejoltFormat ?? formatFromUrl(request.raw.url ?? ''))
  })

  /** The format named in the query of a request that failed before its fields were read. */
  function formatFromUrl (url: string): GamejoltFormat {
    const query = url.indexOf('?') === -1 ? '' : url.slice(url.indexOf('?') + 1)
    const format = parseUrlEncoded(query).format
    return formatOf({ format: typeof format === 'string' ? format : '' })
  }

  /** The hosts a client may have signed: the one it reached, and the public origin's. */
  function hostsOf (request: FastifyRequest): string[] {
    const hosts = [request.host]
    if (config.publicOrigin !== undefined) hosts.push(new URL(config.publicOrigin).host)
    return hosts
  }

  async function handle (request: FastifyRequest<{ Params: { version: string, '*': string } }>, reply: FastifyReply): Promise<FastifyReply> {
    const url = request.raw.url ?? ''
    // A query begins at `?`, or, in a URL without one, at the first `&`:
    // GameJolt.NET (Hertzole) writes `scores/&limit=10&game_id=…` when it
    // has no table id, and signs it so.
    const questionAt = url.indexOf('?')
    const queryAt = questionAt !== -1 ? questionAt : url.indexOf('&')
    const separator = questionAt !== -1 ? '?' : '&'
    const query = queryAt === -1 ? '' : url.slice(queryAt + 1)
    const body = request.body as FormBody | Record<string, unknown> | undefined
    const post: Array<[string, string]> = body === undefined || body === null
      ? []
      : Array.isArray(body.fields)
        ? (body as FormBody).fields
        // Multipart fields, each a plain value (a repeated one a list).
        : Object.entries(body).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map(one => [name, String(one)] as [string, string]))
    const { fields, requests } = paramsOf(separator === '?' ? request.query as Record<string, string> : parseUrlEncoded(query), post)
    const format = request.gamejoltFormat = formatOf(fields)
    const version = request.params.version as GamejoltVersion
    const endpoint = endpointOf((request.params['*'] ?? '').split('&', 1)[0] as string)
    if (!(VERSIONS as readonly string[]).includes(version) || endpoint === undefined) refuse(`No such Game Jolt API endpoint: ${request.url.split('?')[0]?.slice(0, 100) ?? ''}`)

    // The game: its integer id, its API on, approved.
    const gamejoltGameId = /^\d{1,10}$/.test(fields.game_id ?? '') ? Number(fields.game_id) : 0
    const link = await fastify.gamejolt.byGamejoltId(gamejoltGameId)
    const game = link === null ? null : await fastify.records.game(link.game_id)
    if (link === null || !isPlayable(game)) refuse(MESSAGES.badGame)

    // The signature, over the request as the client wrote it.
    const signature = fields.signature
    if (signature === undefined || signature === '') refuse(MESSAGES.noSignature)
    const signed = { path: url.slice(0, queryAt === -1 ? undefined : queryAt), query, separator, hosts: hostsOf(request), post, postUnsigned: version !== 'v1_2', relative: false } as const
    if (!gamejoltSignatureMatches(signed, link.private_key, signature)) refuse(MESSAGES.badSignature)

    delete fields.signature
    delete fields.format
    const call = { fastify, request, game, link, version, fields, limits: limitsOf(limitSubject(request, game)) }
    if (endpoint === 'batch') {
      // The batch counts once itself, and each sub-request once more.
      await fastify.rateLimits.settle(request, reply, call.limits)
      return send(reply, await batch(call, requests, reply), format)
    }
    return send(reply, await answer(call, endpoint, reply), format)
  }

  /** The rate limit of a request (or sub-request): per game and client address, as an API key's requests are per key and address, with RATE_LIMIT_MAX. */
  function limitsOf (subject: string): Limits {
    return fastify.rateLimits.limitsOf('apiKey', subject)
  }
  /** Whose requests a limit counts together: one game's from one address. */
  const limitSubject = (request: FastifyRequest, game: GameRecord): string => keys.gamejoltLimitSubject(game.game_id, clientAddress(request))

  /**
   * An endpoint's answer, its rate limit counted once: in the endpoint's
   * own script call where it has one (COUNTED_IN_SCRIPT: over the limit,
   * its work does not run), else first, in a call of its own. A request
   * that fails before its script is counted after it.
   */
  async function answer (call: GamejoltCall, endpoint: Endpoint, reply: FastifyReply): Promise<GamejoltAnswer> {
    const handler = HANDLERS[endpoint] ?? refuse(`This service does not answer ${endpoint}.`)
    if (!COUNTED_IN_SCRIPT.has(endpoint)) {
      await fastify.rateLimits.settle(call.request, reply, call.limits)
      return await handler(call)
    }
    try {
      return await handler(call)
    } finally {
      // Counts what the script did not (a failure before it), and refuses a call over the limit (LimitReached).
      await fastify.rateLimits.settle(call.request, reply, call.limits)
    }
  }

  /**
   * batch: up to MAX_BATCH sub-requests (`requests[]`, each a relative URL
   * signed on its own), one after the other, or side by side (`parallel`),
   * or stopping at the first failure (`break_on_error`), each answered as
   * it would be alone; a batch inside a batch, or a sub-request in dump
   * format, is refused without running. Each counts against the rate limit.
   */
  async function batch (call: GamejoltCall, requests: string[], reply: FastifyReply): Promise<GamejoltAnswer> {
    const parallel = call.fields.parallel === 'true'
    const breakOnError = call.fields.break_on_error === 'true'
    if (parallel && breakOnError) refuse('The parallel and break_on_error parameters cannot be used in the same request.')
    if (requests.length === 0) refuse('You must enter at least one sub-request (requests[]).')
    if (requests.length > MAX_BATCH) refuse(`A batch takes at most ${MAX_BATCH} sub-requests; this one has ${requests.length}.`)
    const one = async (text: string): Promise<GamejoltAnswer> => {
      try {
        return await subRequest(call, text.trim(), reply)
      } catch (error) {
        return failureOf(error, call.request, fastify)
      }
    }
    const answers: GamejoltAnswer[] = []
    if (parallel) answers.push(...await Promise.all(requests.map(one)))
    else {
      for (const text of requests) {
        const answer = await one(text)
        answers.push(answer)
        if (breakOnError && !answer.success) break
      }
    }
    const responses = answers.map(answer => jsonRecord(answer))
    if (breakOnError && answers.some(answer => !answer.success)) return { success: false, message: 'A sub-request failed; the batch stopped there (break_on_error).', fields: { responses } }
    return success({ responses })
  }

  /** One sub-request of a batch: `/endpoint/?game_id=…&signature=…`, for the batch's own game, signed over that relative URL. */
  async function subRequest (call: GamejoltCall, text: string, reply: FastifyReply): Promise<GamejoltAnswer> {
    const queryAt = text.indexOf('?')
    const path = queryAt === -1 ? text : text.slice(0, queryAt)
    const query = queryAt === -1 ? '' : text.slice(queryAt + 1)
    const { fields } = paramsOf(parseUrlEncoded(query), [])
    const endpoint = endpointOf(path)
    if (endpoint === undefined) refuse(`No such Game Jolt API endpoint: ${path.slice(0, 100)}`)
    if (endpoint === 'batch') refuse('A batch cannot hold a batch.')
    if (formatOf(fields) === 'dump' || fields.format?.toLowerCase() === 'dump') refuse('Dump format is not supported in batch calls.')
    if (fields.game_id !== String(call.link.gamejolt_game_id)) refuse(MESSAGES.badGame)
    const signature = fields.signature
    if (signature === undefined || signature === '') refuse(MESSAGES.noSignature)
    if (!gamejoltSignatureMatches({ path, query, hosts: [], post: [], postUnsigned: false, relative: true }, call.link.private_key, signature)) refuse(MESSAGES.badSignature)
    delete fields.signature
    delete fields.format
    return await answer({ ...call, fields, limits: limitsOf(limitSubject(call.request, call.game)) }, endpoint, reply)
  }

  const schema = {
    tags: ['gamejolt'],
    summary: "Game Jolt's Game API, v1 to v1.2, for games that already speak it (docs/gamejolt.md)",
    description: 'Every endpoint of Game Jolt\'s API under its own path (`users/auth`, `scores/add`, `data-store/set`, ...), answered in Game Jolt\'s formats (`format`: json, keypair, dump, xml) and words, HTTP 200 even for a failure. Signed with the game\'s private key, as Game Jolt\'s clients sign.',
    params: { type: 'object', properties: { version: { type: 'string', enum: [...VERSIONS] } } }
  }
  for (const path of ['/api/game/:version', '/api/game/:version/*']) {
    fastify.route({ method: ['GET', 'POST'], url: path, bodyLimit: GAMEJOLT_BODY_MAX, config: { noStore: true }, schema: path.endsWith('*') ? schema : { hide: true }, handler: handle })
  }
}
