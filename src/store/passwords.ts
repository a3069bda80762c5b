import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Password hashes with scrypt from node:crypto, stored as
 * `scrypt$N$r$p$salt$hash` (base64url), so the cost can rise later without
 * breaking stored hashes. Passwords are never stored or logged in clear.
 */
const COST = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

async function scrypt (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return await new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) => {
      if (error !== null) reject(error)
      else resolve(key)
    })
  })
}

export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(password, salt, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

/** A hash that matches nothing, checked for unknown users so both answers take as long. */
const DECOY = `scrypt$${COST.N}$${COST.r}$${COST.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`

export async function verifyPassword (password: string, stored: string | undefined): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = (stored ?? DECOY).split('$')
  if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected)
}

/**
 * How many password checks may run at once in this process. scrypt runs on
 * libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise),
 * which file reads and DNS share: a flood of logins must not queue behind it
 * for seconds. Past the bound a login is refused at once (rate_limited)
 * instead of waiting.
 */
export const PASSWORD_CHECKS_IN_FLIGHT = 8

let checksInFlight = 0

/** How many password checks are running in this process now. */
export function passwordChecksInFlight (): number {
  return checksInFlight
}

/** verifyPassword, or undefined at once when PASSWORD_CHECKS_IN_FLIGHT checks are already running. */
export async function verifyPasswordBounded (password: string, stored: string | undefined): Promise<boolean | undefined> {
  if (checksInFlight >= PASSWORD_CHECKS_IN_FLIGHT) return undefined
  checksInFlight++
  try {
    return await verifyPassword(password, stored)
  } finally {
    checksInFlight--
  }
}
