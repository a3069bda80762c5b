import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { foldUsername } from '../rules/fields.js'

const CLAIM = luaScript('username-claim')
const RELEASE = luaScript('username-release')

/** How many usernames one step of the first fill copies. */
const FILL_STEP = 1000

/*
 * Usernames as one name whatever their letter case (docs/security.md,
 * "Names"): `DEMO` beside `demo` would show two players as one on the
 * boards. A hash from each name's folded form to the user who has it; a
 * user is made only once it holds its folded form, and gives it up when
 * erased. Users made before the hash existed are copied in once, the first
 * time an instance needs it (where two old users differ only by case, the
 * first copied holds the form; both stay as they are).
 */
export function createUsernameFolds (redis: Redis) {
  const claimScript = defineScript<string>(redis, 'rankUsernameClaim', CLAIM, { writes: true })
  const releaseScript = defineScript<number>(redis, 'rankUsernameRelease', RELEASE, { writes: true })
  const userExists = async (username: string): Promise<boolean> => await redis.exists(keys.user(username)) === 1

  async function fill (): Promise<void> {
    if (await redis.exists(keys.usernameFoldsFilled()) === 1) return
    let cursor = '0'
    do {
      const [next, names] = await redis.sscan(keys.users(), cursor, 'COUNT', FILL_STEP)
      for (const name of names) await redis.hsetnx(keys.usernameFolds(), foldUsername(name), name)
      cursor = next
    } while (cursor !== '0')
    await redis.set(keys.usernameFoldsFilled(), '1')
  }
  let filled: Promise<void> | undefined
  /** The first fill, once per process (again after a failure). */
  async function ready (): Promise<void> {
    filled ??= fill()
    filled.catch(() => { filled = undefined })
    await filled
  }

  return {
    /** The user who has `username` in some letter case (itself included), or null. */
    async holder (username: string): Promise<string | null> {
      await ready()
      const holder = await redis.hget(keys.usernameFolds(), foldUsername(username))
      return holder !== null && await userExists(holder) ? holder : null
    },

    /**
     * Takes the name for `username`, whose record the caller has just made:
     * null when it has it now, else the user who has it in another case.
     * A holder whose record is gone (erased, or made and taken back) is
     * taken over.
     */
    async claim (username: string): Promise<string | null> {
      await ready()
      const folded = foldUsername(username)
      const holder = await claimScript([keys.usernameFolds()], [folded, username, ''])
      if (holder === '' || await userExists(holder)) return holder === '' ? null : holder
      const again = await claimScript([keys.usernameFolds()], [folded, username, holder])
      return again === '' ? null : again
    },

    /** Gives the name up for an erased user (not if another user has taken it since). */
    async release (username: string): Promise<void> {
      await releaseScript([keys.usernameFolds()], [foldUsername(username), username])
    }
  }
}

export type UsernameFolds = ReturnType<typeof createUsernameFolds>
