import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { normalizeOrigin } from '../../src/config/addresses.js'
import { ConfigError } from '../../src/config/values.js'

t.test('defaults of docs/interface.md#configuration', async t => {
  const config = loadConfig({})
  t.equal(config.port, 3000)
  t.equal(config.host, '127.0.0.1')
  t.equal(config.redisUrl, undefined)
  t.equal(config.adminToken, undefined)
  t.equal(config.sessionTtlS, 2592000)
  t.equal(config.sessionCookie, 'sid')
  t.equal(config.trustProxy, false)
  t.same(config.allowedOrigins, [])
  t.equal(config.rateLimitMax, 30)
  t.equal(config.rateLimitWindowMs, 60000)
  t.equal(config.sessionRateLimitMax, 120)
  t.equal(config.bodyLimit, 16384)
  t.equal(config.requestTimeoutMs, 30000)
  t.equal(config.shutdownTimeoutMs, 7000, 'a drain and closing Redis fit the runtimes\' default 10 s stop timeout')
  t.same(config.writeConcern, { replicas: 0, timeoutMs: 500 }, 'a write is acknowledged when the master has it')
  t.equal(config.metricsToken, undefined, 'no metrics unless asked for')
  t.equal(config.metricsPort, undefined)
  t.equal(config.publicOrigin, undefined)
  t.equal(config.playtimeReportS, 30)
  t.equal(config.workers, 1)
  t.equal(config.nodeEnv, 'development')
  t.equal(config.logLevel, 'info')
  t.match(config.dataDir, /\/data$/)
  t.equal(config.rateLimitKeyMultiple, 100)
  t.equal(config.loginRateLimitMax, 10)
  t.equal(config.loginAddressRateLimitMax, 30)
  t.equal(config.demo, true, 'development with the managed Redis')
  t.equal(config.signup, 'open', 'players may sign up where a newcomer tries the service')
  t.equal(config.signupAddressRateLimitMax, 20)
  t.equal(config.signupRateLimitMax, 60)
  t.equal(config.signupWork, 3)
  t.equal(config.guestTtlS, 604800, 'a guest lasts a week')
  t.equal(config.guestAddressRateLimitMax, 30)
  t.equal(config.guestRateLimitMax, 600)
  t.equal(loadConfig({ NODE_ENV: 'production', REDIS_URL: 'redis://r:6379' }).signup, 'closed', 'and only where the operator opens it anywhere else')
  t.equal(loadConfig({ NODE_ENV: 'test' }).signup, 'closed')
  t.same(config.warnings, [])
})

t.test('every variable is read', async t => {
  const config = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    REDIS_URL: 'redis://:pw@example.internal:6380/2',
    ADMIN_TOKEN: 'a-production-token-of-32-characters',
    ADMIN_TOKENS: 'console:viewer:a-viewer-token-of-32-characters-long',
    AUDIT_RETENTION_DAYS: '30',
    IMPORT_MAX_BYTES: '2097152',
    SESSION_TTL_S: '60',
    SESSION_COOKIE: 'play_sid',
    TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
    ALLOWED_ORIGINS: 'https://A.example.com:443, http://b.example.com:8080',
    PLAY_FRAME_ORIGINS: 'https://playhub.example.com',
    RATE_LIMIT_MAX: '5',
    RATE_LIMIT_WINDOW_MS: '2000',
    SESSION_RATE_LIMIT_MAX: '7',
    RATE_LIMIT_KEY_MULTIPLE: '4',
    LOGIN_RATE_LIMIT_MAX: '3',
    LOGIN_ADDRESS_RATE_LIMIT_MAX: '9',
    SIGNUP: 'open',
    SIGNUP_ADDRESS_RATE_LIMIT_MAX: '4',
    SIGNUP_RATE_LIMIT_MAX: '11',
    SIGNUP_WORK: '2',
    GUEST_TTL_S: '120',
    GUEST_ADDRESS_RATE_LIMIT_MAX: '5',
    RATING_PRIOR_WEIGHT: '8',
    RATING_PRIOR_MEAN: '6.5',
    GAMES_LIST_FRESH_S: '30',
    GUEST_RATE_LIMIT_MAX: '50',
    DEMO: 'true',
    BODY_LIMIT: '2048',
    REQUEST_TIMEOUT_MS: '5000',
    SHUTDOWN_TIMEOUT_MS: '2500',
    REDIS_WAIT_REPLICAS: '1',
    REDIS_WAIT_TIMEOUT_MS: '250',
    METRICS_TOKEN: 'a-metrics-token-0123',
    METRICS_PORT: '9100',
    PUBLIC_ORIGIN: 'https://games.example.com',
    PLAYTIME_REPORT_S: '5',
    WORKERS: '4',
    WEBHOOK_DISPATCH: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_RETRY_FOR_S: '3600',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_CONCURRENCY: '8',
    LIVE_STREAMS_PER_KEY: '3',
    LIVE_STREAMS_PER_ADDRESS: '2',
    LIVE_HEARTBEAT_MS: '5000',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: '/tmp/ranking-data'
  })
  t.same(config, {
    port: 8080,
    host: '0.0.0.0',
    redisUrl: 'redis://:pw@example.internal:6380/2',
    dataDir: '/tmp/ranking-data',
    adminToken: 'a-production-token-of-32-characters',
    operatorTokens: [
      { name: 'admin', role: 'admin', token: 'a-production-token-of-32-characters' },
      { name: 'console', role: 'viewer', token: 'a-viewer-token-of-32-characters-long' }
    ],
    auditRetentionMs: 30 * 86_400_000,
    importMaxBytes: 2_097_152,
    sessionTtlS: 60,
    sessionCookie: 'play_sid',
    trustProxy: ['10.0.0.0/8', '127.0.0.1'],
    allowedOrigins: ['https://a.example.com', 'http://b.example.com:8080'],
    playFrameOrigins: ['https://playhub.example.com'],
    rateLimitMax: 5,
    rateLimitWindowMs: 2000,
    sessionRateLimitMax: 7,
    rateLimitKeyMultiple: 4,
    loginRateLimitMax: 3,
    loginAddressRateLimitMax: 9,
    signup: 'open',
    signupAddressRateLimitMax: 4,
    signupRateLimitMax: 11,
    signupWork: 2,
    tokenSignin: null,
    openId: null,
    ratingPrior: { weight: 8, mean: 6.5 },
    gamesListFreshS: 30,
    guestTtlS: 120,
    guestAddressRateLimitMax: 5,
    guestRateLimitMax: 50,
    bodyLimit: 2048,
    requestTimeoutMs: 5000,
    shutdownTimeoutMs: 2500,
    writeConcern: { replicas: 1, timeoutMs: 250 },
    metricsToken: 'a-metrics-token-0123',
    metricsPort: 9100,
    publicOrigin: 'https://games.example.com',
    playtimeReportS: 5,
    webhooks: { dispatch: false, allowPrivate: true, timeoutMs: 3000, retryForMs: 3_600_000, retryBaseMs: 100, pollMs: 50, concurrency: 8 },
    liveStreamsPerKey: 3,
    liveStreamsPerAddress: 2,
    liveHeartbeatMs: 5000,
    workers: 4,
    nodeEnv: 'production',
    logLevel: 'warn',
    demo: true,
    warnings: []
  })
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  t.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false)
  t.equal(loadConfig({ NODE_ENV: 'test' }).logLevel, 'silent')
  t.equal(loadConfig({ REDIS_URL: 'unix:///tmp/redis.sock' }).redisUrl, 'unix:///tmp/redis.sock')
  t.equal(loadConfig({ REDIS_URL: 'redis://10.0.0.1:7000, redis://10.0.0.2:7000' }).redisUrl, 'redis://10.0.0.1:7000, redis://10.0.0.2:7000', 'seed nodes of a cluster')
  t.throws(() => loadConfig({ REDIS_URL: 'redis://a:7000,unix:///tmp/redis.sock' }), /REDIS_URL/, 'a cluster is not reached over a Unix socket')
  t.throws(() => loadConfig({ REDIS_URL: 'redis://a:7000,nope' }), /REDIS_URL/)
  for (const password of ['s3cret-pass', 'Qz7/xK9-w', 'Qz7@xK9-w', 'Qz7,xK9-w']) {
    const message = (() => { try { loadConfig({ REDIS_URL: `redis://user:${password}@a:7000,http://b` }) } catch (error) { return (error as Error).message } return '' })()
    t.match(message, /REDIS_URL/, `a bad REDIS_URL with the password ${password} is refused`)
    for (const part of password.split(/[/@,]/)) t.notMatch(message, part, `no part of the password (${part}) is repeated in the error`)
  }
})

t.test('a bad value stops start-up with one line naming the variable', async t => {
  const bad: Array<[string, string]> = [
    ['PORT', 'abc'], ['PORT', '70000'], ['PORT', '-1'], ['PORT', '80.5'],
    ['HOST', 'a b'],
    ['REDIS_URL', 'http://localhost'], ['REDIS_URL', 'not a url'],
    ['ADMIN_TOKEN', 'has space'],
    ['SESSION_TTL_S', '0'], ['SESSION_COOKIE', 'bad;name'],
    ['TRUST_PROXY', 'maybe'], ['TRUST_PROXY', '10.0.0.0/40'], ['TRUST_PROXY', '1.2.3.4/8/9'], ['TRUST_PROXY', '10.0.0.0/08'], ['TRUST_PROXY', '0.0.0.0/00'],
    ['ALLOWED_ORIGINS', 'example.com'], ['ALLOWED_ORIGINS', 'https://a.com/path'],
    ['RATE_LIMIT_MAX', '0'], ['RATE_LIMIT_WINDOW_MS', '10'], ['SESSION_RATE_LIMIT_MAX', 'x'],
    ['RATE_LIMIT_KEY_MULTIPLE', '0'], ['LOGIN_RATE_LIMIT_MAX', '0'], ['LOGIN_ADDRESS_RATE_LIMIT_MAX', '-3'], ['DEMO', 'yes'],
    ['BODY_LIMIT', '100'], ['REQUEST_TIMEOUT_MS', '10'], ['REDIS_WAIT_REPLICAS', '-1'], ['REDIS_WAIT_REPLICAS', '17'], ['REDIS_WAIT_TIMEOUT_MS', '0'], ['REDIS_WAIT_TIMEOUT_MS', '1000'], ['PUBLIC_ORIGIN', 'ftp://x.com'], ['PLAYTIME_REPORT_S', '0'], ['WORKERS', '0'], ['METRICS_TOKEN', 'short'], ['METRICS_TOKEN', 'has a space in it ok'], ['METRICS_PORT', '0'], ['METRICS_PORT', '3000'], ['NODE_ENV', 'staging'], ['LOG_LEVEL', 'loud'],
    ['WEBHOOK_DISPATCH', 'yes'], ['WEBHOOK_ALLOW_PRIVATE', '1'], ['WEBHOOK_TIMEOUT_MS', '50'], ['WEBHOOK_TIMEOUT_MS', '60001'], ['WEBHOOK_RETRY_FOR_S', '0'],
    ['WEBHOOK_RETRY_BASE_MS', '5'], ['WEBHOOK_POLL_MS', '0'], ['WEBHOOK_CONCURRENCY', '0'], ['LIVE_STREAMS_PER_KEY', '0'], ['LIVE_STREAMS_PER_ADDRESS', '0'], ['LIVE_HEARTBEAT_MS', '50'],
    ['SIGNUP', 'yes'], ['SIGNUP', 'OPEN'], ['SIGNUP_ADDRESS_RATE_LIMIT_MAX', '0'], ['SIGNUP_RATE_LIMIT_MAX', 'x'], ['SIGNUP_WORK', '0'], ['SIGNUP_WORK', '6'], ['GUEST_TTL_S', '59'], ['PLAY_FRAME_ORIGINS', 'playhub.example'], ['GUEST_ADDRESS_RATE_LIMIT_MAX', '0'], ['GUEST_RATE_LIMIT_MAX', '-1']
  ]
  for (const [name, value] of bad) {
    t.throws(() => loadConfig({ [name]: value }), ConfigError, `${name}=${value}`)
    try {
      loadConfig({ [name]: value })
    } catch (error) {
      const message = (error as Error).message
      t.match(message, new RegExp(`^Configuration error: ${name} `), `${name} is named`)
      t.notOk(message.includes('\n'), 'one line')
      if (name === 'ADMIN_TOKEN') t.notOk(message.includes(value), 'the token is not echoed')
    }
  }
})

t.test('production refuses an ADMIN_TOKEN shorter than 32 characters, without echoing it', async t => {
  for (const token of ['short', 'x'.repeat(31)]) {
    t.throws(() => loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: token }), /^Configuration error: ADMIN_TOKEN must be at least 32 characters in production/)
    try {
      loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: token })
    } catch (error) {
      t.notOk((error as Error).message.includes(token), 'the token is not echoed')
    }
  }
  t.equal(loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(32) }).adminToken, 'x'.repeat(32))
  t.equal(loadConfig({ NODE_ENV: 'production' }).adminToken, undefined, 'unset stays allowed: the admin routes are off')
  t.equal(loadConfig({ NODE_ENV: 'development', ADMIN_TOKEN: 'short' }).adminToken, 'short', 'development takes any token')
})

t.test('TRUST_PROXY=true is taken, with a warning that a hop count or the proxy address is safer', async t => {
  const config = loadConfig({ TRUST_PROXY: 'true' })
  t.equal(config.trustProxy, true)
  t.equal(config.warnings.length, 1)
  t.match(config.warnings[0], /TRUST_PROXY=1.*proxy's address/)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.1,0.0.0.0/0' }).warnings.length, 1, 'every IPv4 address is as bad')
  t.equal(loadConfig({ TRUST_PROXY: '::/0' }).warnings.length, 1, 'every IPv6 address too')
  for (const wide of ['0.0.0.0/1', '128.0.0.0/4', '::ffff:0.0.0.0/96', '::ffff:0:0/100', '2000::/3']) {
    t.equal(loadConfig({ TRUST_PROXY: wide }).warnings.length, 1, `${wide} is wider than any proxy network`)
  }
  for (const narrow of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', '::ffff:10.0.0.0/104', '203.0.113.5', '2001:db8::1/128']) {
    t.equal(loadConfig({ TRUST_PROXY: narrow }).warnings.length, 0, `${narrow} is a proxy network`)
  }
  t.same(loadConfig({ TRUST_PROXY: '1' }).warnings, [])
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.1' }).warnings, [])
})

t.test('origins are compared as scheme://host[:port], lower-cased, default ports left out', async t => {
  t.equal(normalizeOrigin('HTTPS://Games.Example.com:443'), 'https://games.example.com')
  t.equal(normalizeOrigin('http://localhost:80'), 'http://localhost')
  t.equal(normalizeOrigin('http://localhost:3000/'), 'http://localhost:3000')
  t.equal(normalizeOrigin('null'), undefined)
  t.equal(normalizeOrigin('https://user:pw@x.com'), undefined)
  t.equal(normalizeOrigin('https://x.com/?q=1'), undefined)
})

t.test('ADMIN_TOKENS: named tokens with roles, each name and token once, never echoed', async t => {
  const tokens = loadConfig({ ADMIN_TOKENS: ' ops:admin:token-one , look:viewer:token:two:has:colons ' }).operatorTokens
  t.same(tokens, [{ name: 'ops', role: 'admin', token: 'token-one' }, { name: 'look', role: 'viewer', token: 'token:two:has:colons' }], 'the token is what follows the role')
  t.same(loadConfig({ ADMIN_TOKEN: 'plain', ADMIN_TOKENS: 'look:viewer:other' }).operatorTokens.map(token => token.name), ['admin', 'look'], 'ADMIN_TOKEN is the token named admin')
  t.same(loadConfig({}).operatorTokens, [], 'none: /admin is off')
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ ADMIN_TOKENS: 'ops:root:secret-one' }, /name:role:token/],
    [{ ADMIN_TOKENS: 'ops:admin:' }, /name:role:token|printable/],
    [{ ADMIN_TOKENS: 'o p:admin:secret-one' }, /name:role:token/],
    [{ ADMIN_TOKENS: 'ops:admin:secret one' }, /printable ASCII/],
    [{ ADMIN_TOKENS: 'ops:admin:secret-one,ops:viewer:secret-two' }, /names each token once/],
    [{ ADMIN_TOKEN: 'secret-zero', ADMIN_TOKENS: 'admin:viewer:secret-two' }, /ADMIN_TOKEN is named admin/],
    [{ ADMIN_TOKENS: 'ops:admin:secret-one,look:viewer:secret-one' }, /a token of its own/],
    [{ NODE_ENV: 'production', ADMIN_TOKENS: 'ops:admin:short-secret' }, /at least 32 characters in production/],
    [{ AUDIT_RETENTION_DAYS: '0' }, /AUDIT_RETENTION_DAYS must be an integer from 1 to 3650/]
  ]
  for (const [env, message] of refused) {
    let error: Error | undefined
    try { loadConfig(env) } catch (caught) { error = caught as Error }
    t.match(error?.message, message, JSON.stringify(env))
    for (const secret of ['secret-one', 'secret-two', 'secret one', 'short-secret']) t.notOk(error?.message.includes(secret), 'no token in the message')
  }
})

t.test('sign-in with signed tokens: one way to check them, and an issuer', async t => {
  const { generateKeyPairSync } = await import('node:crypto')
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  const secret = 'a-shared-secret-of-at-least-32-characters'
  t.equal(loadConfig({}).tokenSignin, null, 'off by default')
  t.same(loadConfig({ TOKEN_SIGNIN_ISSUER: 'https://p.example', TOKEN_SIGNIN_SECRET: secret }).tokenSignin,
    { issuer: 'https://p.example', audience: 'ranking-service', nameClaim: 'name', maxLifetimeS: 900, secret })
  t.same(loadConfig({ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_PUBLIC_KEY: pem.replace(/\n/g, '\\n'), TOKEN_SIGNIN_AUDIENCE: 'games', TOKEN_SIGNIN_NAME_CLAIM: 'nick', TOKEN_SIGNIN_MAX_LIFETIME_S: '60' }).tokenSignin,
    { issuer: 'p', audience: 'games', nameClaim: 'nick', maxLifetimeS: 60, publicKey: pem }, 'a PEM with \\n for its line breaks')
  t.equal(loadConfig({ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_JWKS_URL: 'http://127.0.0.1:9/jwks' }).tokenSignin?.jwksUrl, 'http://127.0.0.1:9/jwks')
  t.equal(loadConfig({ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_SECRET: secret, PUBLIC_ORIGIN: 'https://ranking.playhub.example' }).tokenSignin?.audience, 'https://ranking.playhub.example', 'each installation its own audience')
  const bad: Array<[Record<string, string>, string, RegExp]> = [
    [{ TOKEN_SIGNIN_SECRET: secret }, 'TOKEN_SIGNIN_ISSUER', /must be set with TOKEN_SIGNIN_SECRET/],
    [{ TOKEN_SIGNIN_ISSUER: 'p' }, 'TOKEN_SIGNIN_ISSUER', /exactly one of/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_SECRET: secret, TOKEN_SIGNIN_JWKS_URL: 'https://p/jwks' }, 'TOKEN_SIGNIN_ISSUER', /exactly one of/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_SECRET: 'short' }, 'TOKEN_SIGNIN_SECRET', /at least 32/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_PUBLIC_KEY: 'not a key' }, 'TOKEN_SIGNIN_PUBLIC_KEY', /PEM/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_PUBLIC_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, 'TOKEN_SIGNIN_PUBLIC_KEY', /public key/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_JWKS_URL: 'ftp://p/jwks' }, 'TOKEN_SIGNIN_JWKS_URL', /https or http/],
    [{ NODE_ENV: 'production', REDIS_URL: 'redis://r:6379', TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_JWKS_URL: 'http://p/jwks' }, 'TOKEN_SIGNIN_JWKS_URL', /https URL/],
    [{ TOKEN_SIGNIN_ISSUER: 'p', TOKEN_SIGNIN_SECRET: secret, TOKEN_SIGNIN_MAX_LIFETIME_S: '5' }, 'TOKEN_SIGNIN_MAX_LIFETIME_S', /10 to 86400/]
  ]
  for (const [env, name, why] of bad) {
    const error = (() => { try { loadConfig(env); return null } catch (error) { return error as Error } })()
    t.ok(error instanceof ConfigError, `${name}: refused`)
    t.match(error?.message, new RegExp(`^Configuration error: ${name} `))
    t.match(error?.message, why)
    t.notOk(error?.message.includes(secret) || error?.message.includes('PRIVATE'), 'no secret or key in the message')
  }
})

t.test('OpenID Connect: an issuer, a client id and secret', async t => {
  const base = { OIDC_ISSUER: 'https://id.example.com/realms/games', OIDC_CLIENT_ID: 'ranking', OIDC_CLIENT_SECRET: 's3cret-client' }
  t.equal(loadConfig({}).openId, null, 'off by default')
  t.same(loadConfig(base).openId, { issuer: base.OIDC_ISSUER, clientId: 'ranking', clientSecret: 's3cret-client', label: 'id.example.com', nameClaim: 'preferred_username', scopes: 'openid profile', allowHttp: false })
  t.match(loadConfig({ ...base, OIDC_ISSUER: 'http://127.0.0.1:8080', OIDC_LABEL: 'Playhub', OIDC_SCOPES: 'openid email' }).openId, { allowHttp: true, label: 'Playhub', scopes: 'openid email' }, 'http on loopback, outside production')
  const bad: Array<[Record<string, string>, string]> = [
    [{ OIDC_CLIENT_ID: 'x' }, 'OIDC_ISSUER'],
    [{ ...base, OIDC_ISSUER: 'http://id.example.com' }, 'OIDC_ISSUER'],
    [{ ...base, OIDC_ISSUER: 'http://127.0.0.1:8080', NODE_ENV: 'production', REDIS_URL: 'redis://r:6379' }, 'OIDC_ISSUER'],
    [{ ...base, OIDC_ISSUER: 'not a url' }, 'OIDC_ISSUER'],
    [{ ...base, OIDC_CLIENT_ID: '' }, 'OIDC_CLIENT_ID'],
    [{ ...base, OIDC_CLIENT_SECRET: '' }, 'OIDC_CLIENT_SECRET'],
    [{ ...base, OIDC_SCOPES: 'profile email' }, 'OIDC_SCOPES'],
    [{ ...base, OIDC_LABEL: 'x'.repeat(41) }, 'OIDC_LABEL']
  ]
  for (const [env, name] of bad) {
    const error = (() => { try { loadConfig(env); return null } catch (error) { return error as Error } })()
    t.ok(error instanceof ConfigError, `${name}: refused`)
    t.match(error?.message, new RegExp(`^Configuration error: ${name} `))
    t.notOk(error?.message.includes('s3cret-client'), 'the secret is never in the message')
  }
})
