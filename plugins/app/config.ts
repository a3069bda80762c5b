import fp from 'fastify-plugin'
import type { Config } from '../../src/config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

/** The configuration, validated once at start-up, for every plugin and route. */
export default fp<{ config: Config }>(async (fastify, { config }) => {
  fastify.decorate('config', config)
}, { name: 'config' })
