import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { startTestRedis } from '../helpers/redis.js'

/*
 * Safe operator defaults in the files operators copy (hardening issue,
 * item 13 and item 5): the container's port is published on loopback only,
 * and Redis refuses writes rather than evicting scores when it is full.
 */

t.test('docker-compose.yml publishes the service on loopback only', async t => {
  const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')
  const published = [...compose.matchAll(/^\s*-\s*"([^"]+)"\s*$/gm)].map(match => match[1]).filter(entry => entry?.includes(':3000'))
  t.same(published, ['127.0.0.1:3000:3000'])
  t.notMatch(compose, /^\s*-\s*"?3000:3000"?\s*$/m, 'no port published on every interface')
})

t.test('redis.conf caps memory and never evicts', async t => {
  const conf = readFileSync(new URL('../../redis.conf', import.meta.url), 'utf8')
  t.match(conf, /^maxmemory \d+(mb|gb)$/m, 'a maxmemory is set')
  t.match(conf, /^maxmemory-policy noeviction$/m)
})

t.test('the image carries the operator CLI as ranking-admin, and the CLI module runs on its own', { timeout: 60_000 }, async t => {
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')
  const wrapper = /printf '([^']+)' > \/usr\/local\/bin\/ranking-admin/.exec(dockerfile)?.[1] ?? ''
  t.match(wrapper, 'exec node /app/dist/src/cli.js "$@"', 'ranking-admin runs the compiled src/cli.ts')
  t.match(dockerfile, /COPY src\/store\/lua \.\/src\/store\/lua/, 'the Lua scripts the store reads at start-up are in the image')
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
  t.notMatch(runtime, /--chown/, 'the service\'s own files in the image belong to root: it runs as node and only reads them')

  // What the wrapper runs, from the sources: the module is its own entry point.
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const child = spawn(process.execPath, [...process.execArgv, 'src/cli.ts', 'games', 'create', 'from_cli', '--name', 'From the CLI'], {
    env: { ...process.env, REDIS_URL: redis.url, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [code] = await once(child, 'exit') as [number]
  t.equal(code, 0)
  t.match(JSON.parse(out), { game_id: 'from_cli', name: 'From the CLI' })
})
