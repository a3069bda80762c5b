import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import type {} from '@fastify/swagger' // adds summary, tags and security to FastifySchema
import type { ErrorCode } from '../errors.js'

/*
 * What the route schemas are built from: the envelope, the field helpers and
 * the failures of the two modes. The schemas themselves are beside their
 * routes, one file per URL family (rank/, session/, auth/, play/, admin/
 * schemas.ts); the board reads' answers, which several families share, are
 * in board-schemas.ts. They document the API (the OpenAPI document at /docs)
 * and serialize success answers. They do not validate requests: the check
 * order (docs/interface.md#check-order) interleaves authentication with
 * field checks (a bad `limit` must not be reported before a bad key), so
 * field rules live in src/rules/ and src/operations/index.ts.
 */

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
export const Text = (description: string) => Type.String({ description })
export const IntegerText = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description })

/** Every request can also end in one of these. */
const ALWAYS: ErrorCode[] = ['invalid_param', 'invalid_body', 'payload_too_large', 'method_not_allowed', 'not_found', 'unavailable', 'internal_error']

export function envelope (data: TSchema, codes: ErrorCode[], summary: string, extra: Partial<FastifySchema> = {}): FastifySchema {
  const all = [...new Set([...codes, ...ALWAYS])]
  return {
    summary,
    description: `${summary}\n\nAlways HTTP 200. Success: \`{"ok": true, "data": ...}\`. Failure: \`{"ok": false, "error": "<code>", "message": "<sentence>"}\` with one of these codes, checked in this order: ${all.map(code => `\`${code}\``).join(', ')}.`,
    response: {
      200: Type.Object({ ok: Type.Literal(true), data }, { description: 'Success envelope (HTTP 200)' }),
      default: Type.Object({
        ok: Type.Literal(false),
        error: Type.Union(all.map(code => Type.Literal(code))),
        message: Type.String()
      }, { description: `Failure envelope, also sent with HTTP 200. Codes: ${all.join(', ')}.` })
    },
    ...extra
  } as FastifySchema
}

/** A route whose success is a file, not the envelope (its failures before the first byte still are). */
export function fileAnswer (schema: FastifySchema, description: string, types: readonly string[] = ['application/x-ndjson', 'text/csv']): FastifySchema {
  const file = Type.String({ description })
  return { ...schema, response: { ...(schema.response as object), 200: { description, content: Object.fromEntries(types.map(type => [type, { schema: file }])) } } }
}

/** A route whose success is a redirect (the browser's part of a sign-in); its failures before it are the envelope. */
export function redirectAnswer (schema: FastifySchema, status: 302 | 303, description: string): FastifySchema {
  const { 200: _success, ...failures } = schema.response as Record<string, unknown>
  return { ...schema, response: { ...failures, [status]: { description, type: 'null' } } }
}

export const action = (name: string) => Type.Object({ action: Type.Literal(name, { description: 'selects the endpoint' }) })

/** The failures every request of a mode can end in: API key, session. */
export const API_KEY: ErrorCode[] = ['missing_param', 'rate_limited', 'invalid_key', 'key_revoked', 'invalid_game', 'key_game_mismatch']
export const SESSION: ErrorCode[] = ['not_logged_in', 'forbidden_origin', 'rate_limited', 'missing_param', 'invalid_game']

export const Empty = Type.Object({})
export const gameParams = Type.Object({ game_id: Type.String() })
