import { randomBytes } from 'node:crypto'
import { fail } from '../errors.js'
import { DEFAULT_BOARD } from '../rules/boards.js'
import { gamejoltIdOf } from '../rules/gamejolt-ids.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import type { DataItemSize, GamejoltLink } from '../store/gamejolt.js'
import { DATA_LIMITS, type DataLimits } from '../rules/gamejolt-data.js'
import { OperationContext } from './context.js'
import { cursors, readInput, schemas } from './input.js'
import type { ListPage } from './answers.js'

/** A game's Game Jolt API (docs/gamejolt.md#turning-it-on): on with an id and a private key, or off. */

/** A new private key: 32 hex digits, as Game Jolt makes them. */
function newPrivateKey (): string {
  return randomBytes(16).toString('hex')
}

/** What a game's data store holds, for its operator: usage against the limits, and whose stores hold items. */
export interface DataStoreSummary {
  usage: { items: number, bytes: number }
  limits: DataLimits
  owners: Array<{ owner: string | null, items: number }>
}

export function gamejoltOperations ({ gamejolt, audit, existingGame, users, checkGamejoltIdFree }: OperationContext) {
  /** The game with its API on; not_found while it is off. */
  async function linkOf (gameId: string): Promise<GamejoltLink> {
    const game = await existingGame(gameId)
    return await gamejolt.ofGame(game.game_id) ?? fail('not_found', 'The Game Jolt API is off for this game.')
  }

  /** The store an operator names: a user's (their name as kept, whatever its letter case), or with none the game's global one. */
  async function ownerNamed (owner: string | undefined): Promise<string | undefined> {
    return owner === undefined ? undefined : await users.nameHolder(owner) ?? owner
  }

  return {
    /** The game's Game Jolt settings, the private key included (operators only); not_found while its API is off. */
    async gamejolt (gameId: string): Promise<GamejoltLink> {
      return await linkOf(gameId)
    },

    /**
     * Turns the API on, or changes its id or key: what is given is taken (a
     * game keeps the id and key its builds carry), what is omitted is made
     * (the game's id, else a free one; a new key). A new key or id retires
     * the old one at once.
     */
    async setGamejolt (gameId: string, input?: unknown): Promise<GamejoltLink> {
      const body = readInput(schemas.setGamejolt, input)
      const game = await existingGame(gameId)
      const before = await gamejolt.ofGame(game.game_id)
      let id = body.gamejolt_game_id ?? before?.gamejolt_game_id
      if (id === undefined) id = await gamejolt.claimFreeId(game.game_id)
      else if (!await gamejolt.claimId(id, game.game_id)) fail('invalid_param', `Parameter "gamejolt_game_id" is not valid: another game answers to ${id}.`)
      const dataLimits = { ...(before?.data_limits ?? DATA_LIMITS), ...body.data_limits }
      const primaryTableId = body.primary_table_id ?? before?.primary_table_id ?? gamejoltIdOf(DEFAULT_BOARD)
      if (body.primary_table_id !== undefined) await checkGamejoltIdFree(game, 'table', primaryTableId, DEFAULT_BOARD)
      const link: GamejoltLink = { game_id: game.game_id, gamejolt_game_id: id, private_key: body.private_key ?? newPrivateKey(), primary_table_id: primaryTableId, data_limits: dataLimits }
      await gamejolt.setLink(link, before)
      await audit({ action: 'game.gamejolt', game_id: game.game_id, target: game.game_id, before, after: link })
      return link
    },

    /** Turns the API off: the id and the key stop working at once. */
    async deleteGamejolt (gameId: string, input?: unknown): Promise<{ game_id: string }> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const before = await gamejolt.ofGame(game.game_id) ?? fail('not_found', 'The Game Jolt API is off for this game.')
      await gamejolt.removeLink(before)
      await audit({ action: 'game.gamejolt', game_id: game.game_id, target: game.game_id, before, after: null })
      return { game_id: game.game_id }
    },

    /** What the game's data store holds (docs/gamejolt.md#data-store): usage, limits, and the global store and each user's with its item count. */
    async gamejoltData (gameId: string): Promise<DataStoreSummary> {
      const link = await linkOf(gameId)
      const { usage, owners } = await gamejolt.dataOwners(link.game_id)
      return { usage, limits: link.data_limits, owners }
    },

    /** A page of one store's items in key order: each key and its data's size. */
    async gamejoltDataItems (gameId: string, input?: unknown): Promise<ListPage<DataItemSize> & { owner: string | null }> {
      const query = readInput(schemas.dataItems, input ?? {})
      const link = await linkOf(gameId)
      const owner = await ownerNamed(query.owner)
      const after = query.cursor === undefined ? '' : decodeCursor(cursors.dataItems, query.cursor).after
      const { items, next } = await gamejolt.dataItems(link.game_id, owner, after, query.limit ?? 50)
      return { owner: owner ?? null, items, next_cursor: next === null ? null : encodeCursor({ k: 'data-items', after: next }) }
    },

    /** One item with its data; not_found for no such item. */
    async gamejoltDataItem (gameId: string, input?: unknown): Promise<{ owner: string | null, key: string, data: string, bytes: number }> {
      const query = readInput(schemas.dataItem, input)
      const link = await linkOf(gameId)
      const owner = await ownerNamed(query.owner)
      const data = await gamejolt.dataItem(link.game_id, query.key, owner) ?? fail('not_found', 'No such item in this store.')
      return { owner: owner ?? null, key: query.key, data, bytes: Buffer.byteLength(data) }
    },

    /** Removes one item (the game's usage follows); audited without its data, which may be a player's save. */
    async deleteGamejoltDataItem (gameId: string, input?: unknown): Promise<{ owner: string | null, key: string, removed: true }> {
      const query = readInput(schemas.dataItem, input)
      const link = await linkOf(gameId)
      const owner = await ownerNamed(query.owner)
      const removed = await gamejolt.writeData(link.game_id, owner, { op: 'remove', key: query.key }, link.data_limits)
      if ('refused' in removed) fail('not_found', 'No such item in this store.')
      await audit({ action: 'gamejolt.data_delete', game_id: link.game_id, target: owner ?? null, before: { owner: owner ?? null, key: query.key }, after: null })
      return { owner: owner ?? null, key: query.key, removed: true }
    }
  }
}
