// The minimal service (bench/minimal.mjs) as the harness uses it: its own API
// key, its own board and its process. The service's submit and top20
// scenarios run on it unchanged, with this key and board in their ctx.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { freePort, startProcess, tmp } from './processes.mjs'
import { randInt } from './random.mjs'
import { playerName } from './seed.mjs'
import { waitForHttp } from './service.mjs'

/**
 * A key of the minimal service, in the form of the service's (rk_ and 32 hex
 * digits, a secret of 64), on the game id of the service's board: its
 * requests are as long as the service's, byte for byte. `board` is the
 * minimal service's own sorted set, apart from the service's keys.
 */
export function minimalKey (gameId) {
  return { api_key: `rk_${randomBytes(16).toString('hex')}`, api_secret: randomBytes(32).toString('hex'), game_id: gameId, board: `minimal:{game:${gameId}}:board` }
}

/**
 * Seeds the minimal board with players playerName(0..size-1) and random bests
 * (as the service's boards), in one pipeline of ZADDs of 1,000 members.
 * Returns the board's mirror for the scenarios (best scores; as seedBoard's).
 */
export async function seedMinimalBoard (redis, key, size) {
  const best = new Float64Array(size)
  const pipeline = redis.pipeline()
  pipeline.del(key.board)
  for (let chunk = 0; chunk < size; chunk += 1000) {
    const zset = []
    for (let i = chunk; i < Math.min(size, chunk + 1000); i++) {
      best[i] = randInt(1_000_000)
      zset.push(best[i], playerName(i))
    }
    pipeline.zadd(key.board, ...zset)
  }
  for (const [error] of await pipeline.exec()) if (error) throw error
  return { gameId: key.game_id, size, best }
}

/** Starts bench/minimal.mjs with `workers` processes sharing its port; ready once its top answers with the whole board. */
export async function startMinimal (redisPort, workers, key, size, nodeArgs = []) {
  const port = await freePort()
  const env = { ...process.env, NODE_ENV: 'production', MINIMAL_KEYS: JSON.stringify([key]) }
  const child = startProcess('minimal', process.execPath, [...nodeArgs, 'bench/minimal.mjs', String(port), String(redisPort), String(workers)],
    { env, logPath: join(tmp, `minimal-workers-${workers}.log`) })
  // the key, the script and the seeding, checked at once
  const url = `http://127.0.0.1:${port}/api/rank?action=top&api_key=${key.api_key}&game_id=${key.game_id}&limit=1`
  await waitForHttp(child, url, body => body?.ok === true && body.data.total === size, 'the minimal service')
  return { child, port }
}
