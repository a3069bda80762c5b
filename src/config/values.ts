/** The environment as loadConfig reads it: the process's, or one a test or the CLI gives. */
export type Env = Record<string, string | undefined>

/** NODE_ENV: which defaults apply. */
export type NodeEnv = 'development' | 'production' | 'test'

export class ConfigError extends Error {
  constructor (variable: string, rule: string, value: string) {
    super(`Configuration error: ${variable} ${rule} (got ${JSON.stringify(value)})`)
    this.name = 'ConfigError'
  }
}

export function integer (env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}`, raw)
  }
  return value
}

export function oneOf<T extends string> (env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, raw)
  }
  return raw as T
}

/** A number with up to 2 decimals from min to max, or `word` (a setting's other choice); fallback when unset. */
export function decimalOr<W extends string> (env: Env, name: string, fallback: number | W, word: W, min: number, max: number): number | W {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw === word) return word
  const value = /^\d+(\.\d{1,2})?$/.test(raw) ? Number(raw) : NaN
  if (!(value >= min && value <= max)) throw new ConfigError(name, `must be ${word}, or a number from ${min} to ${max} with at most 2 decimals`, raw)
  return value
}

export function boolean (env: Env, name: string, fallback: boolean): boolean {
  return oneOf(env, name, fallback ? 'true' : 'false', ['true', 'false'] as const) === 'true'
}
