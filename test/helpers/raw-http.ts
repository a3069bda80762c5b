import { connect } from 'node:net'

export interface RawAnswer {
  /** The status line and headers, lower-cased names. */
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * One HTTP/1.1 request written byte by byte on a fresh loopback socket, so a
 * test controls what headers claim and what the body really is: `chunks` are
 * written as they are (add chunk framing yourself when you claim chunked),
 * and `end: false` leaves the request unfinished, as a hostile client would.
 */
export async function rawRequest (port: number, head: string, chunks: Array<string | Buffer> = [], options: { timeoutMs?: number } = {}): Promise<RawAnswer> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = Buffer.alloc(0)
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)) }, options.timeoutMs ?? 10_000)
    socket.on('error', () => {}) // a reset after the answer is part of what is tested
    socket.on('data', chunk => { received = Buffer.concat([received, chunk]) })
    socket.on('close', () => {
      clearTimeout(timer)
      const text = received.toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      if (split === -1) { reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`)); return }
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: decodeBody(text.slice(split + 4), headers) })
    })
    socket.on('connect', () => {
      socket.write(head)
      for (const chunk of chunks) socket.write(chunk)
      // The answer comes when the server is done with us; a kept-alive socket is ended after it.
      const ask = setInterval(() => { if (received.includes('\r\n\r\n') && complete(received)) { clearInterval(ask); socket.end() } }, 20)
      socket.on('close', () => { clearInterval(ask) })
    })
  })
}

function complete (received: Buffer): boolean {
  const text = received.toString('utf8')
  const split = text.indexOf('\r\n\r\n')
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split))
  return length !== null && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])
}

function decodeBody (text: string, headers: Record<string, string>): string {
  if (headers['transfer-encoding'] !== 'chunked') return text
  let body = ''
  let rest = text
  for (;;) {
    const line = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, line), 16)
    if (!(size > 0)) return body
    body += rest.slice(line + 2, line + 2 + size)
    rest = rest.slice(line + 2 + size + 2)
  }
}

/** Frames text as one chunk of a chunked body. */
export function chunk (text: string | Buffer): Buffer {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text)
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')])
}

export const LAST_CHUNK = '0\r\n\r\n'
