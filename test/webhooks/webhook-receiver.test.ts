import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { projectRoot } from '../../src/lib/paths.js'
import { admin, buildTestApp, createGame, dataOf, submit } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The README's webhook receiver (the block fenced `js receiver`), run as a
 * newcomer runs it: it verifies real deliveries with the standardwebhooks
 * package, and turns away one whose signature does not hold.
 */

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8')
const receiver = /^```js receiver\n([\s\S]*?)^```$/m.exec(readme)?.[1]

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

// Spawns the receiver as a process of its own: about 5 s on an idle machine.
t.test('the README\'s receiver verifies deliveries and refuses a forged one', { timeout: 60_000 }, async t => {
  if (receiver === undefined) throw new Error('README.md has no ```js receiver block')
  // In the project, so `standardwebhooks` resolves from its node_modules as it would from the reader's.
  const file = join(projectRoot, `.receiver-${process.pid}.mjs`)
  writeFileSync(file, receiver)
  t.teardown(() => { rmSync(file, { force: true }) })

  const { app } = await buildTestApp(t, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' })
  const game = await createGame(app)
  const port = await freePort()
  const made = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: `http://127.0.0.1:${port}/`, events: ['board.first'] }))
  const child = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: made.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill() })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
  const written = (): string => `(it exited: ${String(child.exitCode)}; stdout: ${out.slice(-300) || 'nothing'}; stderr: ${err.slice(-300) || 'nothing'})`
  // Listening once the port answers (an unsigned body is refused: 400); a receiver that exits fails the wait at once.
  await waitFor(async () => child.exitCode !== null || (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).status === 400,
    { what: () => `the README's receiver to listen on ${port} ${written()}` })
  if (child.exitCode !== null) throw new Error(`the README's receiver exited before it answered ${written()}`)

  dataOf(await submit(app, game, { player: 'readme_reader', score: 1 }))
  await waitFor(() => out.includes('board.first') || child.exitCode !== null, { what: () => `the receiver to print the event ${written()}` })
  t.match(out, new RegExp(`^evt_${game.gameId}_\\d+-\\d+ board\\.first \\{"game_id":"${game.gameId}",.*"player_name":"readme_reader"`, 'm'), 'it printed the verified event')

  const forged = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: '{"type":"board.first","timestamp":"2026-01-01T00:00:00.000Z","data":{}}'
  })
  t.equal(forged.status, 400, 'a forged delivery is refused')
  child.kill()
  await once(child, 'exit')
})
