import fp from 'fastify-plugin'

/** How often each instance erases the guests whose time is up (docs/guide.md#guests). */
export const GUEST_SWEEP_MS = 60_000
/** Most guests one sweep erases; the rest wait for the next. */
const GUESTS_PER_SWEEP = 200

/**
 * Guests last GUEST_TTL_S: every instance sweeps now and then and erases the
 * guests past their time, with their play (operations/users.ts expireGuests).
 * Instances may sweep the same guest at once: an erasure is idempotent.
 */
export default fp(async (fastify) => {
  const operations = fastify.admin.as({ name: 'service', via: 'service' })
  let sweeping: Promise<void> | undefined
  const sweep = (): void => {
    if (sweeping !== undefined) return
    sweeping = operations.expireGuests(GUESTS_PER_SWEEP)
      .then(({ erased, failed }) => {
        if (erased > 0) fastify.log.info({ erased }, 'expired guests erased')
        if (failed > 0) fastify.log.warn({ failed }, 'expired guests: some could not be erased; the next sweep tries again')
      })
      .catch((error: Error) => { fastify.log.warn({ err: error }, 'expired guests: erasure failed; the next sweep tries again') })
      .finally(() => { sweeping = undefined })
  }
  const timer = setInterval(sweep, GUEST_SWEEP_MS).unref()
  fastify.addHook('onReady', async () => { sweep() })
  fastify.addHook('onClose', async () => {
    clearInterval(timer)
    await sweeping
  })
}, { name: 'guest-expiry', dependencies: ['store'] })
