import { writeSync } from 'node:fs'

/** The errors that mean nobody reads the output any more: a closed terminal, a closed pipe. */
const READER_GONE = new Set(['EIO', 'EPIPE', 'EBADF'])
/** For an output stream's 'error' event: nobody reading is not an error; anything else is. */
export function unlessReaderGone (error: NodeJS.ErrnoException): void {
  if (!READER_GONE.has(error.code ?? '')) throw error
}

const BUSY_WAIT = new Int32Array(new SharedArrayBuffer(4))

/**
 * Where the log goes when no stream is given: standard output, written
 * synchronously as pino's own default does, each line formatted by `format`
 * (the pretty log of a developer's terminal) or as it is. Once nobody reads
 * the output (the terminal was closed: SIGHUP, then EIO on every write),
 * lines are dropped. pino's own destination (sonic-boom 4) retries such a
 * write for ever, at exit too, so a service whose terminal closed never
 * stopped, spinning at full CPU.
 */
export function logOutput (format?: (line: string) => string, fd = 1): { write: (line: string) => void } {
  let gone = false
  return {
    write (line) {
      if (gone) return
      let bytes = Buffer.from(format === undefined ? line : format(line))
      while (bytes.length > 0) {
        try {
          bytes = bytes.subarray(writeSync(fd, bytes))
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? ''
          if (READER_GONE.has(code)) {
            gone = true
            return
          }
          if (code !== 'EAGAIN') throw error
          // A pipe that is full for now (a slow log collector): wait, as pino's own does.
          Atomics.wait(BUSY_WAIT, 0, 0, 10)
        }
      }
    }
  }
}
