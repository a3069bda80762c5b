import fp from 'fastify-plugin'
import { createAdmin, type Admin } from '../src/admin.js'
import { createLeaderboard, type Leaderboard } from '../src/store/leaderboard.js'
import { createRecordStore, type RecordStore } from '../src/store/records.js'

declare module 'fastify' {
  interface FastifyInstance {
    records: RecordStore
    leaderboard: Leaderboard
    admin: Admin
  }
}

/** The Redis-backed repositories and the operator operations built on them. */
export default fp(async (fastify) => {
  const records = createRecordStore(fastify.redis)
  fastify.decorate('records', records)
  fastify.decorate('leaderboard', createLeaderboard(fastify.redis))
  fastify.decorate('admin', createAdmin(records))
}, { name: 'store', dependencies: ['redis'] })
