import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { exportJWK, generateKeyPair } from 'jose'

/**
 * A real OpenID provider for the tests (the certified `oidc-provider`), on a
 * free loopback port. Its login and consent are the test's: the next
 * interaction signs in `as` (an account id and its claims), or refuses.
 * Started in two steps, since the provider must know the service's callback
 * URL and the service must know the provider's issuer: listen, then serve.
 */
export interface TestOpenIdProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Registers the client's callback URL and starts answering. */
  serve: (redirectUri: string) => Promise<void>
  /** Who the next sign-in at the provider is: an account and its claims; or null: the player declines. */
  as: (account: { sub: string, claims?: Record<string, unknown> } | null) => void
  close: () => Promise<void>
}

/**
 * The provider's storage for one test: a Map per model (oidc-provider's
 * adapter interface), said out loud so the provider does not warn that it
 * fell back to its own development store.
 */
function memoryAdapter () {
  const stores = new Map<string, Map<string, { payload: Record<string, unknown>, expiresAt: number }>>()
  return class MemoryAdapter {
    private readonly store: Map<string, { payload: Record<string, unknown>, expiresAt: number }>
    constructor (name: string) {
      this.store = stores.get(name) ?? new Map()
      stores.set(name, this.store)
    }

    async upsert (id: string, payload: Record<string, unknown>, expiresIn: number): Promise<void> {
      this.store.set(id, { payload, expiresAt: Date.now() + expiresIn * 1000 })
    }

    async find (id: string): Promise<Record<string, unknown> | undefined> {
      const found = this.store.get(id)
      return found === undefined || found.expiresAt < Date.now() ? undefined : found.payload
    }

    async findByUid (uid: string): Promise<Record<string, unknown> | undefined> {
      for (const [id, { payload }] of this.store) if (payload.uid === uid) return await this.find(id)
      return undefined
    }

    async findByUserCode (userCode: string): Promise<Record<string, unknown> | undefined> {
      for (const [id, { payload }] of this.store) if (payload.userCode === userCode) return await this.find(id)
      return undefined
    }

    async consume (id: string): Promise<void> {
      const found = this.store.get(id)
      if (found !== undefined) found.payload.consumed = Math.floor(Date.now() / 1000)
    }

    async destroy (id: string): Promise<void> {
      this.store.delete(id)
    }

    async revokeByGrantId (grantId: string): Promise<void> {
      for (const [id, { payload }] of this.store) if (payload.grantId === grantId) this.store.delete(id)
    }
  }
}

export async function startOpenIdProvider (t: { teardown: (fn: () => unknown) => void }): Promise<TestOpenIdProvider> {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
  const server = createServer((request, response) => {
    if (handler === undefined) {
      response.writeHead(503).end()
      return
    }
    handler(request, response)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const close = async (): Promise<void> => {
    server.closeAllConnections()
    if (server.listening) await new Promise(resolve => server.close(resolve))
  }
  t.teardown(close)
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = 'ranking-service'
  const clientSecret = 'the-client-secret-of-the-ranking-service'
  const accounts = new Map<string, Record<string, unknown>>()
  let next: { sub: string, claims?: Record<string, unknown> } | null = { sub: 'someone' }

  return {
    issuer,
    clientId,
    clientSecret,
    as: (account) => {
      next = account
      if (account !== null) accounts.set(account.sub, account.claims ?? {})
    },
    close,
    serve: async (redirectUri) => {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true })
      const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        jwks: { keys: [{ ...await exportJWK(privateKey), kid: 'test-key', alg: 'RS256', use: 'sig' }] as never },
        cookies: { keys: ['a-cookie-key-for-the-test-provider'] },
        claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
        findAccount: async (_context: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...accounts.get(sub) }) }),
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        pkce: { required: () => true },
        adapter: memoryAdapter()
      } as never)
      const callback = provider.callback()
      handler = (request, response) => {
        if (request.url?.startsWith('/interaction/') !== true) {
          callback(request, response)
          return
        }
        // The provider's login and consent, decided by the test.
        (async () => {
          const details = await provider.interactionDetails(request, response)
          const account = next
          if (account === null) {
            await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'The player declined.' }, { mergeWithLastSubmission: false })
            return
          }
          const grant = new provider.Grant({ accountId: account.sub, clientId })
          grant.addOIDCScope(String(details.params.scope))
          const grantId = await grant.save()
          await provider.interactionFinished(request, response, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false })
        })().catch((error: Error) => { response.writeHead(500).end(error.message) })
      }
    }
  }
}
