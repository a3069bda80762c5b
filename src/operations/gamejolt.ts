import { randomBytes } from 'node:crypto'
import { fail } from '../errors.js'
import type { GamejoltLink } from '../store/gamejolt.js'
import { OperationContext } from './context.js'
import { readInput, schemas } from './input.js'

/** A game's Game Jolt API (docs/gamejolt.md#turning-it-on): on with an id and a private key, or off. */

/** A new private key: 32 hex digits, as Game Jolt makes them. */
function newPrivateKey (): string {
  return randomBytes(16).toString('hex')
}

export function gamejoltOperations ({ gamejolt, audit, existingGame }: OperationContext) {
  return {
    /** The game's Game Jolt settings, the private key included (operators only); not_found while its API is off. */
    async gamejolt (gameId: string): Promise<GamejoltLink> {
      const game = await existingGame(gameId)
      return await gamejolt.ofGame(game.game_id) ?? fail('not_found', 'The Game Jolt API is off for this game.')
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
      const link: GamejoltLink = { game_id: game.game_id, gamejolt_game_id: id, private_key: body.private_key ?? newPrivateKey() }
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
    }
  }
}
