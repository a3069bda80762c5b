import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import t from 'tap'
import { ADMIN_TOKEN } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { waitFor } from '../helpers/wait.js'

/*
 * TRUST_PROXY end to end (hardening, round 2, item 1): clients at two
 * loopback addresses (127.0.0.2 and 127.0.0.3: Linux routes all of 127/8 to
 * the loopback interface) reach the service through a real proxy hop on
 * 127.0.0.1 that appends the address of whoever connected to it to
 * X-Forwarded-For, as nginx's $proxy_add_x_forwarded_for does. Every
 * documented form of the setting must give each client its own address: the
 * address the service logs for the request, and the per-address limits
 * (eleven wrong admin tokens lock their sender out, not every operator).
 */

interface Proxy { port: number, server: Server }

/** A reverse proxy in front of `target`: one hop, adding the connecting peer to X-Forwarded-For. */
async function startProxy (t: { teardown: (fn: () => unknown) => void }, target: number): Promise<Proxy> {
  const server = createServer((incoming, outgoing) => {
    const forwarded = [incoming.headers['x-forwarded-for'], incoming.socket.remoteAddress].filter(part => part !== undefined).join(', ')
    const upstream = request({ host: '127.0.0.1', port: target, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, 'x-forwarded-for': forwarded } }, answer => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(outgoing)
    })
    upstream.on('error', () => { outgoing.destroy() })
    incoming.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const address = server.address()
  return { port: typeof address === 'object' && address !== null ? address.port : 0, server }
}

/** One request from a given loopback address, through the proxy or straight to the service. */
async function send (from: string, port: number, path: string, headers: Record<string, string> = {}): Promise<{ body: any }> {
  return await new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, localAddress: from, headers, agent: false }, (answer: IncomingMessage) => {
      let text = ''
      answer.on('data', (chunk: Buffer) => { text += chunk.toString() })
      answer.on('end', () => { resolve({ body: JSON.parse(text) }) })
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

/** A service behind a proxy, and the client addresses it logged, by request path. */
async function behindProxy (t: { teardown: (fn: () => unknown) => void }, trustProxy: string) {
  const seen = new Map<string, string>()
  const logStream = new Writable({
    write (line, _encoding, done) {
      const entry = JSON.parse(String(line)) as { msg?: string, req?: { url?: string, remoteAddress?: string } }
      if (entry.msg === 'incoming request' && entry.req?.url !== undefined) seen.set(entry.req.url, entry.req.remoteAddress ?? '')
      done()
    }
  })
  const { baseUrl } = await listeningApp(t, { TRUST_PROXY: trustProxy, LOG_LEVEL: 'info' }, { logStream })
  const service = Number(new URL(baseUrl).port)
  const proxy = await startProxy(t, service)
  /** The address the service logged for one request from `from` through the proxy. */
  const addressOf = async (from: string, headers: Record<string, string> = {}): Promise<string> => {
    const path = `/healthz?probe=${Math.random().toString(36).slice(2)}`
    await send(from, proxy.port, path, headers)
    await waitFor(() => seen.has(path), { what: `the service's log line for ${path}` })
    return seen.get(path) as string
  }
  return { service, proxy, addressOf }
}

for (const [setting, why] of [
  ['1', 'a hop count: the documented setting for one proxy'],
  ['127.0.0.1', 'the proxy\'s address'],
  ['127.0.0.0/31', 'a CIDR range holding the proxy (not its clients)'],
  ['10.0.0.0/8, 127.0.0.1', 'a list'],
  ['true', 'everyone']
] as const) {
  t.test(`TRUST_PROXY=${setting} (${why}): each client behind the proxy is itself`, async t => {
    const { proxy, addressOf } = await behindProxy(t, setting)
    t.equal(await addressOf('127.0.0.2'), '127.0.0.2', 'the first client')
    t.equal(await addressOf('127.0.0.3'), '127.0.0.3', 'the second client')

    // Eleven wrong admin tokens from the first client lock out that client, and only it.
    const wrong = { authorization: 'Bearer not-the-admin-token-0123456789' }
    for (let i = 0; i < 11; i++) await send('127.0.0.2', proxy.port, '/admin/whoami', wrong)
    t.equal((await send('127.0.0.2', proxy.port, '/admin/whoami', { authorization: `Bearer ${ADMIN_TOKEN}` })).body.error, 'rate_limited', 'the client that guessed is locked out, even with the right token')
    t.same((await send('127.0.0.3', proxy.port, '/admin/whoami', { authorization: `Bearer ${ADMIN_TOKEN}` })).body, { ok: true, data: { name: 'admin', role: 'admin' } }, 'another operator behind the same proxy is not')
  })
}

t.test('behind a trusted proxy, an X-Forwarded-For the client wrote itself changes nothing (unless TRUST_PROXY=true)', async t => {
  for (const setting of ['1', '127.0.0.1', '127.0.0.0/31']) {
    const { addressOf } = await behindProxy(t, setting)
    t.equal(await addressOf('127.0.0.2', { 'x-forwarded-for': '198.51.100.9' }), '127.0.0.2', `TRUST_PROXY=${setting}: the proxy's own entry counts, not the client's`)
  }
  // Documented: TRUST_PROXY=true trusts every entry, so the leftmost, which the client wrote, wins.
  const { addressOf } = await behindProxy(t, 'true')
  t.equal(await addressOf('127.0.0.2', { 'x-forwarded-for': '198.51.100.9' }), '198.51.100.9', 'TRUST_PROXY=true: the client chooses (hence the warning at start-up)')
})

t.test('a client that reaches the service directly: addresses are checked, a hop count cannot be', async t => {
  for (const setting of ['127.0.0.1', '127.0.0.0/31']) {
    const { service } = await behindProxy(t, setting)
    const answer = await send('127.0.0.2', service, '/admin/whoami', { 'x-forwarded-for': '198.51.100.9', authorization: 'Bearer wrong-token-0123456789abcdef' })
    t.equal(answer.body.error, 'unauthorized', `TRUST_PROXY=${setting}`)
  }
  // With addresses, the direct client's own header is ignored: its guesses count against its own address.
  const { service, proxy } = await behindProxy(t, '127.0.0.1')
  for (let i = 0; i < 11; i++) await send('127.0.0.2', service, '/admin/whoami', { 'x-forwarded-for': `198.51.100.${i}`, authorization: 'Bearer wrong-token-0123456789abcdef' })
  t.equal((await send('127.0.0.2', service, '/admin/whoami', { authorization: `Bearer ${ADMIN_TOKEN}` })).body.error, 'rate_limited', 'a forged header does not spread the guesses over many addresses')
  t.same((await send('127.0.0.3', proxy.port, '/admin/whoami', { authorization: `Bearer ${ADMIN_TOKEN}` })).body.ok, true, 'and the operator behind the proxy is not locked out')
})
