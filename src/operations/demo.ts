import type { FastifyInstance } from 'fastify'
import { ApiError } from '../errors.js'

export const DEMO_GAME_ID = 'demo'
/** The example game made with Phaser (examples/phaser-game/, built into dist/web/games/phaser/). */
export const PHASER_GAME_ID = 'phaser'
/** Development only: the login printed at start-up for the play page. */
export const DEMO_LOGIN = { username: 'demo', password: 'demo-password' }

export interface DemoCredentials {
  gameId: string
  apiKey: string
  /** Only when the key was made by this call: a stored secret is shown once, when it is created. */
  apiSecret: string | undefined
}

async function ignoreExisting (create: () => Promise<unknown>): Promise<void> {
  try {
    await create()
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'already_exists')) throw error
  }
}

/**
 * The approved demo game (public/games/demo/) and the Phaser example game, a demo login and an API key of the demo game,
 * created once and reused on later starts, so the printed play page and curl
 * example work at once. Only when config.demo says so (DEMO, by default
 * development with the managed Redis): the login is known to everyone.
 */
export async function seedDemo (app: FastifyInstance): Promise<DemoCredentials> {
  // The audit log names the service's own changes `demo`.
  const admin = app.admin.as({ name: 'demo', via: 'service' })
  await ignoreExisting(async () => await admin.createGame({ game_id: DEMO_GAME_ID, name: 'Reaction (demo game)', approved: true, guests: 'listed', runs: 'optional' }))
  if ((await app.records.game(DEMO_GAME_ID, { fresh: true }))?.approved !== true) await admin.updateGame(DEMO_GAME_ID, { approved: true })
  await ignoreExisting(async () => await admin.createGame({ game_id: PHASER_GAME_ID, name: 'Star catcher (made with Phaser)', approved: true, guests: 'listed', runs: 'optional' }))
  await ignoreExisting(async () => await admin.createUser(DEMO_LOGIN))
  for (const apiKey of await app.records.gameKeys(DEMO_GAME_ID)) {
    const key = await app.records.key(apiKey)
    if (key !== null && !key.revoked) return { gameId: DEMO_GAME_ID, apiKey, apiSecret: undefined }
  }
  const created = await admin.createKey({ game_id: DEMO_GAME_ID })
  return { gameId: DEMO_GAME_ID, apiKey: created.api_key, apiSecret: created.api_secret }
}

/** A signed submission a newcomer can paste into a shell; it signs with Node at paste time. */
export function curlExample (baseUrl: string, demo: { gameId: string, apiKey: string, apiSecret: string }): string {
  const sign = 'node -e \'process.stdout.write(require("crypto").createHmac("sha256",process.argv[1]).update(process.argv[2]).digest("hex"))\''
  return [
    `KEY=${demo.apiKey} SECRET=${demo.apiSecret} TS=$(date +%s)`,
    `SIGN=$(${sign} "$SECRET" "$KEY|${demo.gameId}|alice|1234|$TS")`,
    `curl -s -X POST '${baseUrl}/api/rank?action=submit' -d api_key=$KEY -d game_id=${demo.gameId} -d player_name=alice -d score=1234 -d ts=$TS -d sign=$SIGN`
  ].join('\n')
}
