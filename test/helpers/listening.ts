import type { FastifyInstance } from 'fastify'
import type { ServerExtras } from '../../src/server-options.js'
import { buildTestApp, type TestContext } from './app.js'

/** The app on a real loopback port, for clients that speak HTTP (the SDK, a browser). */
export async function listeningApp (t: { teardown: (fn: () => unknown) => void }, env: Record<string, string> = {}, extras: ServerExtras = {}): Promise<TestContext & { baseUrl: string }> {
  const context = await buildTestApp(t, env, extras)
  await context.app.listen({ port: 0, host: '127.0.0.1' })
  return { ...context, baseUrl: baseUrlOf(context.app) }
}

export function baseUrlOf (app: FastifyInstance): string {
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('the app is not listening')
  return `http://127.0.0.1:${address.port}`
}
