import { readFileSync } from 'node:fs'
import t from 'tap'

/*
 * Safe operator defaults in the files operators copy (hardening issue,
 * item 13 and item 5): the container's port is published on loopback only,
 * and Redis refuses writes rather than evicting scores when it is full.
 */

t.test('docker-compose.yml publishes the service on loopback only', async t => {
  const compose = readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')
  const published = [...compose.matchAll(/^\s*-\s*"([^"]+)"\s*$/gm)].map(match => match[1]).filter(entry => entry?.includes(':3000'))
  t.same(published, ['127.0.0.1:3000:3000'])
  t.notMatch(compose, /^\s*-\s*"?3000:3000"?\s*$/m, 'no port published on every interface')
})

t.test('redis.conf caps memory and never evicts', async t => {
  const conf = readFileSync(new URL('../redis.conf', import.meta.url), 'utf8')
  t.match(conf, /^maxmemory \d+(mb|gb)$/m, 'a maxmemory is set')
  t.match(conf, /^maxmemory-policy noeviction$/m)
})
