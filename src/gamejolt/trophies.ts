import { type StoredAchievement } from '../store/achievements.js'
import { MESSAGES, refuse, success, type GamejoltAnswer, type GamejoltRecord } from './answers.js'
import type { GamejoltCall } from './call.js'
import { ago, requestUser } from './players.js'
import { sessionRun } from './sessions.js'

/*
 * Game Jolt's trophies are the game's achievements
 * (docs/gamejolt.md#trophies): each known by its integer id
 * (gamejolt_id), its difficulty written as Game Jolt writes it.
 */

/** The achievement a trophy_id names, or undefined. */
function byTrophyId (all: Map<string, StoredAchievement>, text: string | undefined): StoredAchievement | undefined {
  if (!/^\d{1,10}$/.test((text ?? '').trim())) return undefined
  const id = Number((text as string).trim())
  for (const achievement of all.values()) if (achievement.gamejolt_id === id) return achievement
  return undefined
}

/** `bronze` as Game Jolt writes it: `Bronze`. */
const difficultyOf = (achievement: StoredAchievement): string => achievement.difficulty.charAt(0).toUpperCase() + achievement.difficulty.slice(1)

/**
 * trophies (fetch): the user's view of the game's trophies, in the order
 * the game lists its achievements: all, only those achieved (`achieved`
 * true) or not (false), or those named (`trophy_id`, a comma list, which
 * overrides `achieved`). A hidden one the user has not unlocked stays
 * masked, as on our own API: every field empty.
 */
export async function fetchTrophies (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, game, fields, request } = call
  const user = await requestUser(call)
  const all = await fastify.achievements.achievements(game.game_id)
  const { unlocks } = await fastify.achievements.progress(game.game_id, user.username, all)
  let chosen = [...all.values()]
  if ((fields.trophy_id ?? '') !== '') {
    chosen = (fields.trophy_id as string).split(',').map(id => byTrophyId(all, id) ?? refuse(MESSAGES.trophyNotOfGame))
  } else if (fields.achieved === 'true' || fields.achieved === 'false') {
    const wanted = fields.achieved === 'true'
    chosen = chosen.filter(achievement => unlocks.has(achievement.achievement_id) === wanted)
  }
  const origin = fastify.config.publicOrigin ?? `${request.protocol}://${request.host}`
  const trophies: GamejoltRecord[] = chosen.map(achievement => {
    const at = unlocks.get(achievement.achievement_id)
    if (achievement.hidden && at === undefined) return { id: '', title: '', description: '', difficulty: '', image_url: '', achieved: 'false' }
    return {
      id: String(achievement.gamejolt_id),
      title: achievement.name,
      description: achievement.description,
      difficulty: difficultyOf(achievement),
      image_url: achievement.icon === null ? '' : `${origin}/play/${encodeURIComponent(game.game_id)}/achievements/${achievement.achievement_id}/icon?v=${achievement.icon.etag}`,
      achieved: at === undefined ? 'false' : ago(at)
    }
  })
  return success({ trophies })
}

/** trophies/add-achieved: the game unlocks the trophy for the user (with the user's session as its run, where the game keeps runs). */
export async function addAchieved (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, game, fields } = call
  const user = await requestUser(call)
  const achievement = byTrophyId(await fastify.achievements.achievements(game.game_id), fields.trophy_id) ?? refuse(MESSAGES.badTrophy)
  const run = await sessionRun(call, user)
  const done = await fastify.achievements.unlock(game.game_id, achievement.achievement_id, user.username, { run, byKey: false }) ?? refuse(MESSAGES.badTrophy)
  if (!done.unlocked) refuse(MESSAGES.hasTrophy)
  return success()
}

/** trophies/remove-achieved: the unlock is taken back (audited as the player's; counts follow). */
export async function removeAchieved (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, game, fields, request } = call
  const user = await requestUser(call)
  const achievement = byTrophyId(await fastify.achievements.achievements(game.game_id), fields.trophy_id) ?? refuse(MESSAGES.badTrophy)
  const operations = fastify.admin.as({ name: `player:${user.username}`, via: 'http', request_id: String(request.id) })
  const { taken } = await operations.takeBackUnlock(game.game_id, achievement.achievement_id, user.username)
  if (!taken) refuse(MESSAGES.lacksTrophy)
  return success()
}
