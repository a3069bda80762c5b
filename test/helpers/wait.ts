import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Waits until `condition` holds, for at most `timeoutMs`: tests wait for what
 * they need, never for a fixed time. The bound is generous on purpose (a busy
 * machine can be several times slower than an idle one) and only stops a wait
 * that would never end; it fails naming what did not happen. A condition that
 * throws (a service not listening yet) has not held yet; the last error is
 * part of the failure. `what` may be a function, for a text known only then
 * (what a child process has written so far).
 */
export async function waitFor (condition: () => boolean | Promise<boolean>, options: { what: string | (() => string), timeoutMs?: number, intervalMs?: number }): Promise<void> {
  const { what, timeoutMs = 30_000, intervalMs = 20 } = options
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      if (await condition()) return
    } catch (error) {
      lastError = error
    }
    if (Date.now() > deadline) {
      throw new Error(`waited ${timeoutMs / 1000} s for ${typeof what === 'string' ? what : what()}${lastError === undefined ? '' : ` (last error: ${String(lastError)})`}`)
    }
    await sleep(intervalMs)
  }
}
