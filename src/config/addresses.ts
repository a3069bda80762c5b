import { isIP } from 'node:net'
import { redisUrls } from '../store/redis-client.js'
import { ConfigError, type Env } from './values.js'

/** TRUST_PROXY: whether to believe X-Forwarded-For, as Fastify's trustProxy takes it. */
export type TrustProxy = boolean | number | string[]

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

export function origin (env: Env, name: string, raw: string): string {
  const normalized = normalizeOrigin(raw.trim())
  if (normalized === undefined) throw new ConfigError(name, 'must be an origin such as https://games.example.com', raw)
  return normalized
}

export function trustProxy (env: Env): TrustProxy {
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
export function trustsTheWorld (entry: string): boolean {
  const [address = '', prefixText] = entry.split('/')
  if (prefixText === undefined) return false
  const prefix = Number(prefixText)
  if (isIP(address) === 4) return prefix < 8
  if (/^::ffff:/i.test(address) && prefix >= 96) return prefix - 96 < 8
  return prefix < 7
}

/** One Redis URL, or several comma-separated seed nodes of one Redis Cluster. */
export function redisUrl (env: Env): string | undefined {
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
