import { createHmac, randomBytes } from 'node:crypto'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/*
 * One webhook delivery attempt over HTTP, signed as the Standard Webhooks
 * specification says (https://www.standardwebhooks.com): receivers verify
 * it with that project's libraries, in any language.
 */

/** A new signing secret: `whsec_` and 24 random bytes in base64, as Standard Webhooks writes them. */
export function newWebhookSecret (): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

/** The `webhook-signature` header: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes. */
export function webhookSignature (secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`
}

/**
 * Whether an address is on the public internet: ipaddr.js's `unicast`
 * range, which leaves out loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved and unspecified addresses (an
 * IPv4-mapped IPv6 address counts as its IPv4 address), and the transition
 * ranges that carry an IPv4 address inside an IPv6 one (6to4, Teredo,
 * NAT64), whatever they carry: none is a receiver's address today. ipaddr.js
 * calls the deprecated IPv4-compatible block (::/96, `::a9fe:a9fe` is
 * 169.254.169.254) unicast, so it is refused here, also whatever it carries.
 */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv6' && parsed.toByteArray().slice(0, 12).every(byte => byte === 0)) return false
  return parsed.range() === 'unicast'
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS'
  constructor (host: string) {
    super(`${host} is a private or local address (WEBHOOK_ALLOW_PRIVATE=true allows it)`)
    this.name = 'PrivateAddressError'
  }
}

/**
 * A DNS lookup that keeps only public addresses, so a receiver's name cannot
 * point the service at its own network, whatever it resolves to at the
 * moment of sending (DNS rebinding included: the address checked is the one
 * connected to).
 */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error !== null) {
      callback(error, '', 0)
      return
    }
    const allowed = addresses.filter(({ address }) => isPublicAddress(address))
    if (allowed.length === 0) {
      callback(new PrivateAddressError(hostname), '', 0)
      return
    }
    if (options.all === true) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed)
    else callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

export interface AttemptResult {
  /** The receiver's HTTP status, when it answered. */
  status?: number
  /** Why the attempt failed without an answer (or with a status that is not 2xx). */
  error?: string
  delivered: boolean
  durationMs: number
}

export interface SendOptions {
  timeoutMs: number
  allowPrivate: boolean
}

/**
 * What is read of a receiver's answer after its status: at most this many
 * bytes of body, then the connection is closed (the body means nothing to
 * the service). An attempt holds its receiver's slot until its connection is
 * done, so a receiver that answers at once and then streams a body slowly
 * holds its 16 slots, no more, until the timeout ends each.
 */
export const MAX_ANSWER_BYTES = 4096

/**
 * Connections to receivers are reused between deliveries (an answer read
 * whole leaves its connection open). An idle one is closed after 30 s, or a
 * second before the receiver says it will close it (`Keep-Alive:
 * timeout=N`; Node's agent heeds that hint only when it has a timeout of
 * its own).
 */
const IDLE_CONNECTION_MS = 30_000
const agents = { 'http:': new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }), 'https:': new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }) }

/**
 * POSTs the body to the URL with the Standard Webhooks headers. Delivered
 * when the receiver answers 2xx within the timeout; a redirect, another
 * status, a refused or private address, or the timeout is a failure. Never
 * throws.
 */
export async function attemptDelivery (url: string, secret: string, messageId: string, body: string, { timeoutMs, allowPrivate }: SendOptions): Promise<AttemptResult> {
  const started = performance.now()
  const done = (result: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...result, durationMs: performance.now() - started })
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return done({ delivered: false, error: 'the URL cannot be parsed' })
  }
  const host = target.hostname.replace(/^\[|\]$/g, '')
  // An address written in the URL is never looked up: check it here.
  if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return done({ delivered: false, error: new PrivateAddressError(host).message })
  const timestamp = Math.floor(Date.now() / 1000)
  const client = target.protocol === 'https:' ? https : http
  return await new Promise<AttemptResult>(resolve => {
    let answered: AttemptResult | undefined
    let request: http.ClientRequest
    // A plain timer, not AbortSignal.timeout, whose bookkeeping is costly at thousands of deliveries a second (docs/decisions/0062-hot-path-choices-measured.md).
    const timer = setTimeout(() => { request.destroy(new Error(`no answer within ${timeoutMs} ms`)) }, timeoutMs)
    const send = (agent: http.Agent | false): void => {
      request = client.request(target, {
        method: 'POST',
        agent,
        ...(allowPrivate ? {} : { lookup: publicLookup }),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'ranking-service-webhooks',
          'webhook-id': messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(secret, messageId, timestamp, body)
        }
      }, response => {
        const status = response.statusCode ?? 0
        const delivered = status >= 200 && status < 300
        // Only the status matters. The attempt ends when its connection is
        // done: the body read whole (MAX_ANSWER_BYTES at most), cut off past
        // that, or by the same timeout.
        answered = done({ delivered, status, ...(delivered ? {} : { error: `the receiver answered HTTP ${status}` }) })
        let read = 0
        response.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER_BYTES) request.destroy()
        })
        response.on('error', () => {})
        response.on('close', () => {
          clearTimeout(timer)
          resolve(answered as AttemptResult)
        })
      })
      const sent = request
      sent.on('error', (error: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed as it was reused ("socket
        // hang up" before any answer) says nothing about the receiver: the
        // request is sent again once, on a new connection, as Node's docs
        // advise (`request.reusedSocket`). The receiver dedupes by webhook-id.
        if (answered === undefined && sent.reusedSocket && error.code === 'ECONNRESET' && agent !== false) {
          send(false)
          return
        }
        clearTimeout(timer)
        // After the status, a connection cut short still carried the answer.
        resolve(answered ?? done({ delivered: false, error: error.message }))
      })
      sent.end(body)
    }
    send(agents[target.protocol as 'http:' | 'https:'])
  })
}

/** The longest receiver URL accepted. */
export const MAX_URL_LENGTH = 2000

/**
 * Why a receiver URL is refused, or undefined when it is fine: only
 * http(s), no credentials in it, and (unless private addresses are allowed)
 * a host that is a public address or a name with at least one public
 * address now. Sending checks the address again each time.
 */
export async function receiverUrlProblem (text: string, allowPrivate: boolean): Promise<string | undefined> {
  if (text.length > MAX_URL_LENGTH) return `at most ${MAX_URL_LENGTH} characters`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'an absolute http:// or https:// URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'an http:// or https:// URL'
  if (url.username !== '' || url.password !== '') return 'a URL without credentials (the signature proves who sent a delivery)'
  if (allowPrivate) return undefined
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : 'a public address: loopback and private networks are refused (WEBHOOK_ALLOW_PRIVATE=true allows them)'
  const addresses = await new Promise<LookupAddress[] | undefined>(resolve => { dnsLookup(host, { all: true }, (error, found) => { resolve(error === null ? found : undefined) }) })
  if (addresses === undefined) return `a host that can be resolved (${host.slice(0, 100)} cannot)`
  if (!addresses.some(({ address }) => isPublicAddress(address))) return `a public host: ${host.slice(0, 100)} resolves to loopback or private addresses only (WEBHOOK_ALLOW_PRIVATE=true allows them)`
  return undefined
}
