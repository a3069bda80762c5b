import type { FastifyRequest } from 'fastify'
import { requireParams } from '../rules/fields.js'

/** A hook that answers missing_param for the first absent or empty parameter. */
export function requires (...names: string[]) {
  return async (request: FastifyRequest) => { requireParams(request.fields, names) }
}
