import { resolve } from 'node:path'
import type { TokenSigninOptions } from './signin/platform-token.js'
import type { OpenIdOptions } from './signin/openid.js'
import { COMMAND_TIMEOUT_MS, type WriteConcern } from './store/redis-client.js'
import { ConfigError, boolean, decimalOr, integer, oneOf, type Env, type NodeEnv } from './config/values.js'
import { DEFAULT_PRIOR, type RatingPrior } from './rules/ratings.js'
import { checkToken, operatorTokens, type OperatorToken } from './config/operator-tokens.js'
import { origin, redisUrl, trustProxy, trustsTheWorld, type TrustProxy } from './config/addresses.js'
import { openId, tokenSignin } from './config/signin.js'

/**
 * How long a stop drains by default: with CLOSE_GRACE_MS for closing Redis
 * after it, under the 10 s that `docker stop`, `podman stop` and `docker run`
 * give a container before killing it, whatever the clients do.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 7_000
/** How long closing Redis (and a managed redis-server) may take after the drain, before the process exits with 1. */
export const CLOSE_GRACE_MS = 2_500

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
  trustProxy: TrustProxy
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
  /**
   * The prior of every game's weighted score (docs/ratings.md): RATING_PRIOR_WEIGHT,
   * how many full-weight ratings it counts as; RATING_PRIOR_MEAN, the mean it
   * pulls toward: `platform` (the platform's weighted mean) or a fixed value.
   */
  ratingPrior: RatingPrior
  /** GAMES_LIST_FRESH_S: how old the order a new walk of GET /api/games takes may be once games' figures moved (each order kept costs a copy of the index). */
  gamesListFreshS: number
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
  nodeEnv: NodeEnv
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
    ratingPrior: {
      weight: integer(env, 'RATING_PRIOR_WEIGHT', DEFAULT_PRIOR.weight, 0, 1000),
      mean: decimalOr(env, 'RATING_PRIOR_MEAN', DEFAULT_PRIOR.mean, 'platform', 1, 10)
    },
    gamesListFreshS: integer(env, 'GAMES_LIST_FRESH_S', 10, 0, 300),
    guestTtlS: integer(env, 'GUEST_TTL_S', 604800, 60, 31536000),
    guestAddressRateLimitMax: integer(env, 'GUEST_ADDRESS_RATE_LIMIT_MAX', 30, 1, 1_000_000),
    guestRateLimitMax: integer(env, 'GUEST_RATE_LIMIT_MAX', 600, 1, 1_000_000),
    sessionRateLimitMax: integer(env, 'SESSION_RATE_LIMIT_MAX', 120, 1, 1_000_000_000),
    bodyLimit: integer(env, 'BODY_LIMIT', 16384, 1024, 1_048_576),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', DEFAULT_SHUTDOWN_TIMEOUT_MS, 0, 600_000),
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
