import { ConfigError, type Env, type NodeEnv } from './values.js'

/** What an operator token may do: `admin` everything, `viewer` reads only (docs/guide.md, operator tokens). */
export type OperatorRole = 'admin' | 'viewer'

/** A named operator token: its name is who the audit log says made a change. */
export interface OperatorToken {
  name: string
  role: OperatorRole
  token: string
}

/** The shortest ADMIN_TOKEN production accepts: 32 characters of a random token are out of reach of guessing. */
export const ADMIN_TOKEN_MIN_LENGTH = 32

/** What a token may look like: printable ASCII without spaces (and, in ADMIN_TOKENS, without commas). */
export function checkToken (variable: string, token: string, nodeEnv: NodeEnv, shown: string): void {
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
export function operatorTokens (env: Env, nodeEnv: NodeEnv, adminToken: string | undefined): OperatorToken[] {
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
