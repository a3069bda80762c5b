import { randomBytes } from 'node:crypto'
import { fail } from '../errors.js'
import { type KeyRecord } from '../rules/games.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { ListPage, PublicKey, namePage, publicKey } from './answers.js'
import { OperationContext } from './context.js'
import { now } from './games.js'
import { cursors, readInput, schemas } from './input.js'

/** API keys: listing, issuing, changing the rate limit, revoking. */

export function keysOperations ({ records, audit, changeKey, existingGame }: OperationContext) {
  return {
    /** A game's API keys in key order, never their secrets; revoked or not. */
    async listKeys (gameId: string, input?: unknown): Promise<ListPage<PublicKey> & { game_id: string }> {
      const query = readInput(schemas.listKeys, input)
      const game = await existingGame(gameId)
      const from = query.cursor === undefined ? '' : decodeCursor(cursors.names('keys'), query.cursor).after
      const all = (await records.gameKeys(game.game_id)).sort()
      const { items, next } = await namePage(
        async (after, count) => all.filter(key => key > after).slice(0, count),
        async ids => await Promise.all(ids.map(async id => await records.key(id))),
        key => query.revoked === undefined || key.revoked === query.revoked,
        from, query.limit ?? 50, query.revoked !== undefined)
      return { game_id: game.game_id, items: items.map(publicKey), next_cursor: next === null ? null : encodeCursor({ k: 'keys', after: next }) }
    },

    /** One API key, never its secret. */
    async key (apiKey: string): Promise<PublicKey> {
      return publicKey(await records.key(apiKey) ?? fail('not_found', 'No such API key.'))
    },

    /** A new key and its secret; the secret is shown this once. */
    async createKey (input: unknown): Promise<PublicKey & { api_secret: string }> {
      const body = readInput(schemas.createKey, input)
      if (await records.game(body.game_id) === null) fail('invalid_game', 'No such game.')
      const key: KeyRecord = {
        api_key: `rk_${randomBytes(16).toString('hex')}`,
        game_id: body.game_id,
        secret: randomBytes(32).toString('hex'),
        revoked: false,
        created_at: now(),
        rate_limit: body.rate_limit ?? null
      }
      if (await records.createKey(key) === null) fail('internal_error', 'The new key collided with an existing one; try again.')
      const { api_key: apiKey, ...rest } = publicKey(key)
      await audit({ action: 'key.create', game_id: key.game_id, target: apiKey, before: null, after: { api_key: apiKey, api_secret: key.secret, ...rest } })
      return { api_key: apiKey, api_secret: key.secret, ...rest }
    },

    async updateKey (apiKey: string, input: unknown): Promise<PublicKey> {
      const body = readInput(schemas.updateKey, input)
      return await changeKey('key.update', apiKey, body, audit)
    },

    async revokeKey (apiKey: string, input?: unknown): Promise<PublicKey> {
      readInput(schemas.none, input)
      return await changeKey('key.revoke', apiKey, { revoked: true }, audit)
    }
  }
}
