import { once } from 'node:events'
import type { BoardExport } from '../operations/answers.js'

export interface CliIo {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
  /** The first line of standard input, for --password-stdin. */
  readLine: () => Promise<string>
  /** Raw output as it comes (an export), resolved once it may go on (backpressure); false once the reader has gone (`| head`). */
  write?: (text: string) => Promise<boolean>
  /** Standard input as it arrives (an import). */
  input?: () => AsyncIterable<Buffer | string>
  /** How the operator ran the CLI, for its help (`npm run cli --` unless said). */
  name?: string
}

async function readStdinLine (): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) {
    text += String(chunk)
    if (text.includes('\n')) break
  }
  return text.split(/\r?\n/, 1)[0] ?? ''
}

export const defaultIo: CliIo = {
  out: line => { process.stdout.write(`${line}\n`) },
  err: line => { process.stderr.write(`${line}\n`) },
  env: process.env,
  readLine: readStdinLine
}

/** Standard output closed by its reader (EPIPE): an export stops there, quietly, as `git log | head` does. */
let stdoutClosed = false

async function writeStdout (text: string): Promise<boolean> {
  if (stdoutClosed) return false
  if (process.stdout.listenerCount('error') === 0) process.stdout.on('error', () => { stdoutClosed = true })
  try {
    // once() rejects when the stream errors while it waits: the reader has gone.
    if (!process.stdout.write(text)) await Promise.race([once(process.stdout, 'drain'), once(process.stdout, 'close')])
  } catch {
    stdoutClosed = true
  }
  return !stdoutClosed
}

/** Writes a file an operation gives (an export) to the CLI's output as it is read; stops when the reader goes. */
export async function writeFile (file: BoardExport, io: CliIo): Promise<undefined> {
  const write = io.write ?? writeStdout
  for await (const text of file.body) if (!await write(text)) break
  return undefined
}
