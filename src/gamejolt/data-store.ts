import type { DataRefusal } from '../store/gamejolt.js'
import { MESSAGES, noItemWithKey, refuse, success, type GamejoltAnswer } from './answers.js'
import type { GamejoltCall } from './call.js'
import { requestUser } from './players.js'

/*
 * Game Jolt's data store (docs/gamejolt.md#data-store): cloud saves, per
 * game (global) and per user and game, in the game's Redis slot, each write
 * one script call within the game's limits.
 */

/** The longest item key, in bytes: a key names an item, it holds none of it. */
export const MAX_KEY_BYTES = 256

const OPERATIONS = ['add', 'subtract', 'multiply', 'divide', 'append', 'prepend'] as const

/** Whose store a request names: a user's (username and token), or the game's global one. */
async function ownerOf (call: GamejoltCall): Promise<string | undefined> {
  const named = (call.fields.username ?? '') !== '' || (call.fields.user_token ?? '') !== ''
  return named ? (await requestUser(call)).username : undefined
}

/** The item key a request names: required, at most MAX_KEY_BYTES. */
function keyOf (call: GamejoltCall): string {
  const key = call.fields.key ?? ''
  if (key === '') refuse(MESSAGES.keyNeeded)
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) refuse(`An item key is at most ${MAX_KEY_BYTES} bytes here.`)
  return key
}

/** What a refused write answers: Game Jolt's words for its own rules, ours for the limits. */
function refusal (refused: DataRefusal, key: string, bytes?: number): never {
  const limits = 'an operator can raise it (PUT /admin/games/:game_id/gamejolt)'
  switch (refused) {
    case 'none': return refuse(noItemWithKey(key))
    case 'not_numeric_stored': return refuse(MESSAGES.storedNotNumeric)
    case 'not_numeric_value': return refuse(MESSAGES.valueNotNumeric)
    case 'div_zero': return refuse(MESSAGES.divisionByZero)
    case 'too_big': return refuse(`The item's data would be ${bytes ?? 0} bytes, past this game's limit for one item; ${limits}. Nothing was stored.`)
    case 'owner_full': return refuse(`This store holds as many items as this game allows one owner; remove one first, or ${limits}. Nothing was stored.`)
    case 'game_full': return refuse(`This game's data store holds as many items as it may; ${limits}. Nothing was stored.`)
    case 'bytes_full': return refuse(`This game's data store holds as many bytes as it may; ${limits}. Nothing was stored.`)
  }
}

/** data-store (fetch): one item's data. */
export async function fetchData (call: GamejoltCall): Promise<GamejoltAnswer> {
  const owner = await ownerOf(call)
  const key = keyOf(call)
  const data = await call.fastify.gamejolt.dataItem(call.game.game_id, key, owner) ?? refuse(MESSAGES.noItem)
  return success({ data })
}

/** data-store/set: an item made or replaced (a stray `operation`, as GameMaker's update sends, changes nothing: set sets). */
export async function setData (call: GamejoltCall): Promise<GamejoltAnswer> {
  const owner = await ownerOf(call)
  const key = keyOf(call)
  const data = call.fields.data ?? refuse(MESSAGES.dataNeeded)
  const written = await call.fastify.gamejolt.writeData(call.game.game_id, owner, { op: 'set', key, data }, call.link.data_limits, call.limits)
  if ('refused' in written) refusal(written.refused, key, written.bytes)
  return success()
}

/** data-store/update: Game Jolt's operations on an item, its new data answered. */
export async function updateData (call: GamejoltCall): Promise<GamejoltAnswer> {
  const owner = await ownerOf(call)
  const key = keyOf(call)
  const operation = call.fields.operation ?? ''
  if (operation === '') refuse(MESSAGES.operationNeeded)
  if (!(OPERATIONS as readonly string[]).includes(operation)) refuse(MESSAGES.badOperation)
  const value = call.fields.value ?? refuse(MESSAGES.valueNeeded)
  const written = await call.fastify.gamejolt.writeData(call.game.game_id, owner, { op: 'update', key, data: value, operation }, call.link.data_limits, call.limits)
  if ('refused' in written) refusal(written.refused, key, written.bytes)
  return success({ data: written.data })
}

/** data-store/remove: an item gone. */
export async function removeData (call: GamejoltCall): Promise<GamejoltAnswer> {
  const owner = await ownerOf(call)
  const key = keyOf(call)
  const written = await call.fastify.gamejolt.writeData(call.game.game_id, owner, { op: 'remove', key }, call.link.data_limits, call.limits)
  if ('refused' in written) refusal(written.refused, key, written.bytes)
  return success()
}

/** data-store/get-keys: the store's keys, those matching `pattern` (`*` for any text) when one is given. */
export async function dataKeys (call: GamejoltCall): Promise<GamejoltAnswer> {
  const owner = await ownerOf(call)
  const pattern = call.fields.pattern ?? ''
  const matches = pattern === '' ? null : new RegExp(`^${pattern.split('*').map(part => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's')
  const all = await call.fastify.gamejolt.dataKeys(call.game.game_id, owner)
  return success({ keys: all.filter(key => matches === null || matches.test(key)).map(key => ({ key })) })
}
