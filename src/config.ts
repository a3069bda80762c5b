import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { createPublicKey } from 'node:crypto'
import type { TokenSigninOptions } from './signin/platform-token.js'
import type { OpenIdOptions } from './signin/openid.js'
import { COMMAND_TIMEOUT_MS, redisUrls, type WriteConcern } from './store/redis-client.js'

/**
 * Configuration (docs/interface.md#configuration), read and validated once at start-up.
 * A bad value throws ConfigError, whose message is the one line printed.
 */
export interface Config {
  port: number
  host: string
  /** Unset: the service starts and owns a local redis-server. */
  redisUrl: string | undefined
  /** Where a managed redis-server keeps its data. */
  dataDir: string
  /** ADMIN_TOKEN: one more admin token, named `admin`; kept for what it has always done. */
  adminToken: string | undefined
  /** Every operator token: ADMIN_TOKEN (as `admin`) and those of ADMIN_TOKENS. Empty: /admin is off. */
  operatorTokens: OperatorToken[]
  /** AUDIT_RETENTION_DAYS: how long the audit log keeps an entry. */
  auditRetentionMs: number
  /** IMPORT_MAX_BYTES: the largest board import body taken (it is read as it arrives, never held whole). */
  importMaxBytes: number
  /** GET /metrics on the service's port answers `Authorization: Bearer <METRICS_TOKEN>` (docs/guide.md, metrics). */
  metricsToken: string | undefined
  /** The metrics are also served, without a token, on this port of HOST: by the primary when WORKERS > 1. */
  metricsPort: number | undefined
  sessionTtlS: number
  sessionCookie: string
  trustProxy: boolean | number | string[]
  allowedOrigins: string[]
  /** PLAY_FRAME_ORIGINS: the platform's origins whose pages may frame the play page (and so sign its player in with a token). */
  playFrameOrigins: string[]
  rateLimitMax: number
  /** A key's total across addresses is this many times rateLimitMax. */
  rateLimitKeyMultiple: number
  rateLimitWindowMs: number
  /** Login attempts per username (across addresses) per minute. */
  loginRateLimitMax: number
  /** Login attempts per client address per minute. */
  loginAddressRateLimitMax: number
  /** SIGNUP: whether anyone may create an account (POST /auth/signup). */
  signup: 'open' | 'closed'
  /** Sign-up attempts per client address (IPv4, or IPv6 /64) per hour. */
  signupAddressRateLimitMax: number
  /** Sign-ups whose proof of work holds, from everywhere together, per minute. */
  signupRateLimitMax: number
  /** SIGNUP_WORK: zero hex digits the sign-up proof of work must find, each 16 times the work. */
  signupWork: number
  /** Sign-in with the platform's signed tokens (TOKEN_SIGNIN_*); null: off. */
  tokenSignin: TokenSigninOptions | null
  /** "Sign in with …" an OpenID Connect provider (OIDC_*); null: off. */
  openId: OpenIdOptions | null
  /** GUEST_TTL_S: how long a guest (its session and its play) lasts unless it signs up or logs in first. */
  guestTtlS: number
  /** Guests made per client address (IPv4, or IPv6 /64) per hour. */
  guestAddressRateLimitMax: number
  /** Guests made from everywhere together, per minute. */
  guestRateLimitMax: number
  sessionRateLimitMax: number
  bodyLimit: number
  /** How long a client may take to send a whole request. */
  requestTimeoutMs: number
  /** REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS: how many replicas confirm a write before it is acknowledged (docs/guide.md, scaling out). */
  writeConcern: WriteConcern
  /** How long a shutdown may spend answering what it received before closing the rest (docs/guide.md, rolling restarts). */
  shutdownTimeoutMs: number
  publicOrigin: string | undefined
  /** How often the play page reports play time, in seconds. */
  playtimeReportS: number
  /** Webhooks (docs/guide.md#webhooks): how this process delivers them. */
  webhooks: WebhookConfig
  /** Live boards (Server-Sent Events): the open streams one API key may have, across instances; a heartbeat's interval. */
  liveStreamsPerKey: number
  /** LIVE_STREAMS_PER_ADDRESS: live streams one client address may have open, over every instance (its share of a key's, and on the play page). */
  liveStreamsPerAddress: number
  liveHeartbeatMs: number
  /** Service processes on this box (node:cluster); 1 runs in this process. */
  workers: number
  nodeEnv: 'development' | 'production' | 'test'
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /**
   * Create the demo game, login and key at start-up: DEMO=true or false, and
   * by default only in development with the managed Redis, so no Redis the
   * operator runs ever gets a known login by accident.
   */
  demo: boolean
  /** Settings that work but that an operator should reconsider; logged at start-up. */
  warnings: string[]
}

/** What an operator token may do: `admin` everything, `viewer` reads only (docs/guide.md, operator tokens). */
export type OperatorRole = 'admin' | 'viewer'

/** A named operator token: its name is who the audit log says made a change. */
export interface OperatorToken {
  name: string
  role: OperatorRole
  token: string
}

export interface WebhookConfig {
  /** WEBHOOK_DISPATCH: whether this process delivers webhooks (every process does by default). */
  dispatch: boolean
  /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback and private addresses are allowed (by default in development only). */
  allowPrivate: boolean
  /** WEBHOOK_TIMEOUT_MS: how long a receiver has to answer an attempt. */
  timeoutMs: number
  /** WEBHOOK_RETRY_FOR_S: how long after its first attempt a delivery is still retried, in ms. */
  retryForMs: number
  /** WEBHOOK_RETRY_BASE_MS: the wait before the first retry; each next one doubles it (up to an hour), with jitter. */
  retryBaseMs: number
  /** WEBHOOK_POLL_MS: how often this process looks for new events and due deliveries. */
  pollMs: number
  /** WEBHOOK_CONCURRENCY: attempts in flight from this process, over every webhook. */
  concurrency: number
}

function boolean (env: Env, name: string, fallback: boolean): boolean {
  return oneOf(env, name, fallback ? 'true' : 'false', ['true', 'false'] as const) === 'true'
}

/** The shortest ADMIN_TOKEN production accepts: 32 characters of a random token are out of reach of guessing. */
export const ADMIN_TOKEN_MIN_LENGTH = 32

export class ConfigError extends Error {
  constructor (variable: string, rule: string, value: string) {
    super(`Configuration error: ${variable} ${rule} (got ${JSON.stringify(value)})`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** What a token may look like: printable ASCII without spaces (and, in ADMIN_TOKENS, without commas). */
function checkToken (variable: string, token: string, nodeEnv: Config['nodeEnv'], shown: string): void {
  if (!/^[\x21-\x7e]+$/.test(token)) throw new ConfigError(variable, 'must be printable ASCII without spaces', shown)
  if (nodeEnv === 'production' && token.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ConfigError(variable, `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters in production (try: openssl rand -hex 32)`, `${shown} (${token.length} characters)`)
  }
}

/**
 * ADMIN_TOKENS: comma-separated `name:role:token` (role admin or viewer),
 * plus ADMIN_TOKEN as one admin token named `admin`. Names and tokens are
 * each used once. A token is never shown in an error, only its name.
 */
function operatorTokens (env: Env, nodeEnv: Config['nodeEnv'], adminToken: string | undefined): OperatorToken[] {
  const tokens: OperatorToken[] = adminToken === undefined ? [] : [{ name: 'admin', role: 'admin', token: adminToken }]
  const raw = env.ADMIN_TOKENS ?? ''
  if (raw.trim() === '') return tokens
  for (const [index, entry] of raw.split(',').entries()) {
    const match = /^\s*([A-Za-z0-9_.-]{1,64}):(admin|viewer):(.*?)\s*$/.exec(entry)
    if (match === null) throw new ConfigError('ADMIN_TOKENS', 'must be comma-separated name:role:token entries (name from A-Z a-z 0-9 _ . -, role admin or viewer)', `(entry ${index + 1} not shown)`)
    const [, name = '', role, token = ''] = match
    checkToken('ADMIN_TOKENS', token, nodeEnv, `(the token of "${name}")`)
    if (tokens.some(other => other.name === name)) throw new ConfigError('ADMIN_TOKENS', `names each token once${name === 'admin' && adminToken !== undefined ? ' (ADMIN_TOKEN is named admin)' : ''}`, name)
    if (tokens.some(other => other.token === token)) throw new ConfigError('ADMIN_TOKENS', 'must give each name a token of its own', `(the token of "${name}")`)
    tokens.push({ name, role: role as OperatorRole, token })
  }
  return tokens
}

function integer (env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}`, raw)
  }
  return value
}

function oneOf<T extends string> (env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, raw)
  }
  return raw as T
}

/** `scheme://host[:port]`, lower-cased, default ports left out (docs/interface.md#sessions-and-login). */
export function normalizeOrigin (text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return undefined
  return url.origin.toLowerCase()
}

function origin (env: Env, name: string, raw: string): string {
  const normalized = normalizeOrigin(raw.trim())
  if (normalized === undefined) throw new ConfigError(name, 'must be an origin such as https://games.example.com', raw)
  return normalized
}

function trustProxy (env: Env): Config['trustProxy'] {
  const raw = env.TRUST_PROXY
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map(entry => entry.trim())
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/')
    const family = isIP(address ?? '')
    const maxPrefix = family === 6 ? 128 : 32
    if (family === 0 || extra !== undefined || (prefix !== undefined && !(/^(0|[1-9]\d*)$/.test(prefix) && Number(prefix) <= maxPrefix))) {
      throw new ConfigError('TRUST_PROXY', 'must be true, false, a hop count, or a comma-separated list of IP addresses or CIDR ranges', raw)
    }
  }
  return entries
}

/**
 * A TRUST_PROXY range wider than any network of proxies: an IPv4 range wider
 * than /8 (10.0.0.0/8 is the widest private one), the same inside IPv6's
 * IPv4-mapped block, or an IPv6 range wider than /7 (fc00::/7, all private).
 */
function trustsTheWorld (entry: string): boolean {
  const [address = '', prefixText] = entry.split('/')
  if (prefixText === undefined) return false
  const prefix = Number(prefixText)
  if (isIP(address) === 4) return prefix < 8
  if (/^::ffff:/i.test(address) && prefix >= 96) return prefix - 96 < 8
  return prefix < 7
}

/**
 * Sign-in with the platform's signed tokens (docs/signin.md#signed-tokens):
 * off unless TOKEN_SIGNIN_ISSUER is set, and then exactly one way to check
 * signatures: a JWKS URL (https in production), a PEM public key (`\n` may
 * stand for its line breaks), or a shared secret of at least 32 characters.
 */
function tokenSignin (env: Env, nodeEnv: Config['nodeEnv']): TokenSigninOptions | null {
  const issuer = env.TOKEN_SIGNIN_ISSUER ?? ''
  const ways = (['TOKEN_SIGNIN_JWKS_URL', 'TOKEN_SIGNIN_PUBLIC_KEY', 'TOKEN_SIGNIN_SECRET'] as const).filter(name => (env[name] ?? '') !== '')
  if (issuer === '') {
    if (ways.length > 0) throw new ConfigError('TOKEN_SIGNIN_ISSUER', `must be set with ${ways[0] as string}: the iss the platform's tokens carry`, '')
    return null
  }
  if (issuer.length > 200) throw new ConfigError('TOKEN_SIGNIN_ISSUER', 'must be at most 200 characters', issuer)
  if (ways.length !== 1) throw new ConfigError('TOKEN_SIGNIN_ISSUER', 'needs exactly one of TOKEN_SIGNIN_JWKS_URL, TOKEN_SIGNIN_PUBLIC_KEY, TOKEN_SIGNIN_SECRET', ways.join(', ') || '(none)')
  const options: TokenSigninOptions = {
    issuer,
    // Each installation its own audience: a token minted for one is refused by another.
    audience: env.TOKEN_SIGNIN_AUDIENCE === undefined || env.TOKEN_SIGNIN_AUDIENCE === '' ? normalizeOrigin(env.PUBLIC_ORIGIN ?? '') ?? 'ranking-service' : env.TOKEN_SIGNIN_AUDIENCE,
    nameClaim: env.TOKEN_SIGNIN_NAME_CLAIM === undefined || env.TOKEN_SIGNIN_NAME_CLAIM === '' ? 'name' : env.TOKEN_SIGNIN_NAME_CLAIM,
    maxLifetimeS: integer(env, 'TOKEN_SIGNIN_MAX_LIFETIME_S', 900, 10, 86400)
  }
  const jwksUrl = env.TOKEN_SIGNIN_JWKS_URL ?? ''
  const publicKey = (env.TOKEN_SIGNIN_PUBLIC_KEY ?? '').replace(/\\n/g, '\n')
  const secret = env.TOKEN_SIGNIN_SECRET ?? ''
  if (jwksUrl !== '') {
    let url: URL | undefined
    try { url = new URL(jwksUrl) } catch {}
    const schemes = nodeEnv === 'production' ? ['https:'] : ['https:', 'http:']
    if (url === undefined || !schemes.includes(url.protocol)) throw new ConfigError('TOKEN_SIGNIN_JWKS_URL', `must be an ${schemes.join(' or ').replace(/:/g, '')} URL`, jwksUrl)
    options.jwksUrl = jwksUrl
  } else if (publicKey !== '') {
    try {
      // A private key would also give a public one: refused, so no private key sits in the service's environment.
      if (!/^-----BEGIN PUBLIC KEY-----/.test(publicKey.trim()) || createPublicKey(publicKey).type !== 'public') throw new Error('not a public key')
    } catch {
      throw new ConfigError('TOKEN_SIGNIN_PUBLIC_KEY', 'must be a public key in PEM (-----BEGIN PUBLIC KEY-----)', '(not shown)')
    }
    options.publicKey = publicKey
  } else {
    if (secret.length < 32) throw new ConfigError('TOKEN_SIGNIN_SECRET', 'must be at least 32 characters', '(hidden)')
    options.secret = secret
  }
  return options
}

/**
 * "Sign in with …" an OpenID Connect provider (docs/signin.md#openid-connect):
 * off unless OIDC_ISSUER is set, and then its client id and secret too. The
 * issuer is https, or http on loopback outside production (a provider on
 * this machine, or a test's).
 */
function openId (env: Env, nodeEnv: Config['nodeEnv']): OpenIdOptions | null {
  const issuer = env.OIDC_ISSUER ?? ''
  const clientId = env.OIDC_CLIENT_ID ?? ''
  const clientSecret = env.OIDC_CLIENT_SECRET ?? ''
  if (issuer === '') {
    if (clientId !== '' || clientSecret !== '') throw new ConfigError('OIDC_ISSUER', 'must be set with OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: the provider\'s issuer URL', '')
    return null
  }
  let url: URL | undefined
  try { url = new URL(issuer) } catch {}
  const loopback = url !== undefined && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  const allowHttp = url?.protocol === 'http:' && loopback && nodeEnv !== 'production'
  if (url === undefined || (url.protocol !== 'https:' && !allowHttp)) throw new ConfigError('OIDC_ISSUER', 'must be an https URL (http only on loopback, outside production)', issuer)
  if (clientId === '') throw new ConfigError('OIDC_CLIENT_ID', 'must be set with OIDC_ISSUER', '')
  if (clientSecret === '') throw new ConfigError('OIDC_CLIENT_SECRET', 'must be set with OIDC_ISSUER', '')
  const scopes = env.OIDC_SCOPES === undefined || env.OIDC_SCOPES === '' ? 'openid profile' : env.OIDC_SCOPES
  if (!scopes.split(' ').includes('openid')) throw new ConfigError('OIDC_SCOPES', 'must include openid (space-separated scopes)', scopes)
  const label = env.OIDC_LABEL ?? ''
  if (label.length > 40) throw new ConfigError('OIDC_LABEL', 'must be at most 40 characters', label)
  return {
    issuer,
    clientId,
    clientSecret,
    label: label === '' ? url.hostname : label,
    nameClaim: env.OIDC_NAME_CLAIM === undefined || env.OIDC_NAME_CLAIM === '' ? 'preferred_username' : env.OIDC_NAME_CLAIM,
    scopes,
    allowHttp
  }
}

/** One Redis URL, or several comma-separated seed nodes of one Redis Cluster. */
function redisUrl (env: Env): string | undefined {
  const raw = env.REDIS_URL
  if (raw === undefined || raw === '') return undefined
  const parts = redisUrls(raw)
  for (const part of parts) {
    let url: URL | undefined
    try {
      url = new URL(part)
    } catch {}
    if (url === undefined || !['redis:', 'rediss:', 'unix:'].includes(url.protocol) || (parts.length > 1 && url.protocol === 'unix:')) {
      // The message shows the value, never a password in it.
      throw new ConfigError('REDIS_URL', 'must be a redis://, rediss:// or unix:// URL, or comma-separated redis:// or rediss:// URLs of cluster nodes', raw.includes('@') ? '(not shown: it carries credentials)' : raw)
    }
  }
  return raw
}

export function loadConfig (env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', 'development', ['development', 'production', 'test'] as const)
  const sessionCookie = env.SESSION_COOKIE ?? ''
  if (sessionCookie !== '' && !/^[A-Za-z0-9_.-]{1,64}$/.test(sessionCookie)) {
    throw new ConfigError('SESSION_COOKIE', 'must be 1 to 64 characters from A-Z a-z 0-9 _ . -', sessionCookie)
  }
  const host = env.HOST ?? ''
  if (/\s/.test(host)) throw new ConfigError('HOST', 'must be a host name or address', host)
  const adminToken = env.ADMIN_TOKEN === undefined || env.ADMIN_TOKEN === '' ? undefined : env.ADMIN_TOKEN
  if (adminToken !== undefined) checkToken('ADMIN_TOKEN', adminToken, nodeEnv, '(hidden)')
  const metricsToken = env.METRICS_TOKEN
  if (metricsToken !== undefined && metricsToken !== '' && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters of printable ASCII without spaces', '(hidden)')
  }
  const port = integer(env, 'PORT', 3000, 0, 65535)
  const metricsPort = env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535)
  if (metricsPort !== undefined && metricsPort === port) throw new ConfigError('METRICS_PORT', 'must differ from PORT', String(metricsPort))
  const warnings: string[] = []
  const proxies = trustProxy(env)
  // `true`, or a range wider than any proxy network, believes every X-Forwarded-For.
  if (proxies === true || (Array.isArray(proxies) && proxies.some(trustsTheWorld))) {
    warnings.push(`TRUST_PROXY=${env.TRUST_PROXY ?? ''} believes every X-Forwarded-For, so a client that reaches the service directly picks its own address for rate limits; set the number of proxy hops (TRUST_PROXY=1) or the proxy's address instead`)
  }
  const redis = redisUrl(env)
  const demo = oneOf(env, 'DEMO', 'auto', ['true', 'false', 'auto'] as const)
  return {
    port,
    host: host === '' ? '127.0.0.1' : host,
    redisUrl: redis,
    dataDir: resolve(env.DATA_DIR === undefined || env.DATA_DIR === '' ? 'data' : env.DATA_DIR),
    adminToken,
    operatorTokens: operatorTokens(env, nodeEnv, adminToken),
    auditRetentionMs: integer(env, 'AUDIT_RETENTION_DAYS', 90, 1, 3650) * 86_400_000,
    importMaxBytes: integer(env, 'IMPORT_MAX_BYTES', 1_073_741_824, 1_048_576, 68_719_476_736),
    metricsToken: metricsToken === '' ? undefined : metricsToken,
    metricsPort,
    sessionTtlS: integer(env, 'SESSION_TTL_S', 2592000, 1, 315360000),
    sessionCookie: sessionCookie === '' ? 'sid' : sessionCookie,
    trustProxy: proxies,
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '').split(',').filter(entry => entry.trim() !== '').map(entry => origin(env, 'ALLOWED_ORIGINS', entry)),
    playFrameOrigins: (env.PLAY_FRAME_ORIGINS ?? '').split(',').filter(entry => entry.trim() !== '').map(entry => origin(env, 'PLAY_FRAME_ORIGINS', entry)),
    rateLimitMax: integer(env, 'RATE_LIMIT_MAX', 30, 1, 1_000_000_000),
    rateLimitKeyMultiple: integer(env, 'RATE_LIMIT_KEY_MULTIPLE', 100, 1, 1_000_000),
    rateLimitWindowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60000, 1000, 86_400_000),
    loginRateLimitMax: integer(env, 'LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
    loginAddressRateLimitMax: integer(env, 'LOGIN_ADDRESS_RATE_LIMIT_MAX', 30, 1, 1_000_000),
    // Open where a newcomer tries the service, closed unless the operator opens it anywhere else.
    signup: oneOf(env, 'SIGNUP', nodeEnv === 'development' ? 'open' : 'closed', ['open', 'closed'] as const),
    signupAddressRateLimitMax: integer(env, 'SIGNUP_ADDRESS_RATE_LIMIT_MAX', 20, 1, 1_000_000),
    signupRateLimitMax: integer(env, 'SIGNUP_RATE_LIMIT_MAX', 60, 1, 1_000_000),
    signupWork: integer(env, 'SIGNUP_WORK', 3, 1, 5),
    tokenSignin: tokenSignin(env, nodeEnv),
    openId: openId(env, nodeEnv),
    guestTtlS: integer(env, 'GUEST_TTL_S', 604800, 60, 31536000),
    guestAddressRateLimitMax: integer(env, 'GUEST_ADDRESS_RATE_LIMIT_MAX', 30, 1, 1_000_000),
    guestRateLimitMax: integer(env, 'GUEST_RATE_LIMIT_MAX', 600, 1, 1_000_000),
    sessionRateLimitMax: integer(env, 'SESSION_RATE_LIMIT_MAX', 120, 1, 1_000_000_000),
    bodyLimit: integer(env, 'BODY_LIMIT', 16384, 1024, 1_048_576),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    writeConcern: {
      replicas: integer(env, 'REDIS_WAIT_REPLICAS', 0, 0, 16),
      // Below the client's command timeout, so a replica that does not confirm is a clear `unavailable`.
      timeoutMs: integer(env, 'REDIS_WAIT_TIMEOUT_MS', 500, 1, COMMAND_TIMEOUT_MS - 100)
    },
    playtimeReportS: integer(env, 'PLAYTIME_REPORT_S', 30, 1, 300),
    publicOrigin: env.PUBLIC_ORIGIN === undefined || env.PUBLIC_ORIGIN === '' ? undefined : origin(env, 'PUBLIC_ORIGIN', env.PUBLIC_ORIGIN),
    webhooks: {
      dispatch: boolean(env, 'WEBHOOK_DISPATCH', true),
      // In development the receiver is usually on the same machine.
      allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', nodeEnv === 'development'),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retryForMs: integer(env, 'WEBHOOK_RETRY_FOR_S', 86_400, 1, 30 * 86_400) * 1000,
      retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 250, 10, 60_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 50, 1, 10_000)
    },
    liveStreamsPerKey: integer(env, 'LIVE_STREAMS_PER_KEY', 100, 1, 1_000_000),
    liveStreamsPerAddress: integer(env, 'LIVE_STREAMS_PER_ADDRESS', 10, 1, 1_000_000),
    liveHeartbeatMs: integer(env, 'LIVE_HEARTBEAT_MS', 15_000, 100, 300_000),
    workers: integer(env, 'WORKERS', 1, 1, 64),
    nodeEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    demo: demo === 'auto' ? nodeEnv === 'development' && redis === undefined : demo === 'true',
    warnings
  }
}
