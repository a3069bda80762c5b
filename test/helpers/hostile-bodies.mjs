// A hostile client for the body-limit tests, run as its own process so the
// test measures only the service's memory:
//   node hostile-bodies.mjs <port> <mode> <connections> <path>
// oversized: each connection sends the chunked multipart body of the crash
//            report (199 fields of 16 KiB, about 3.4 MB) and never ends it;
// stalled:   each connection sends 12 KiB of a chunked multipart field, then
//            waits, never ending the request.
// All connections are opened at once. The process prints "ready" once every
// connection has written its bytes (or ended), then, once its standard input
// closes (and, oversized, every connection has ended, 60 s at most), a line
// of JSON with how each connection ended:
//   codes:      the error codes of the envelopes that arrived, counted;
//   unanswered: connections the service closed or reset before an answer
//               reached this client (the answer, written while this client
//               was still sending, can be lost to the reset that closing a
//               socket with unread bytes sends; a write error also makes
//               Node drop what was received and not yet read);
//   open:       connections still open when the client stopped waiting.
import { connect } from 'node:net'

const [port, mode, count, path] = process.argv.slice(2)
const boundary = 'B'
const field = (name, size) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${'a'.repeat(size)}\r\n`
const body = mode === 'oversized'
  ? Buffer.from(Array.from({ length: 199 }, (_, i) => field(`f${i}`, 16384)).join(''))
  : Buffer.from(field('f0', 12 * 1024).slice(0, -2)) // the field is still open
const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`
const framed = Buffer.concat([Buffer.from(head), Buffer.from(`${body.length.toString(16)}\r\n`), body])

// A generous bound: 2,000 connections at once overflow the listen backlog,
// and a connection whose SYN was dropped is retried by the kernel 1, 3, 7,
// 15 and 31 s later; on a busy machine the last ones are accepted late.
const SETTLE_MS = 60_000

const sockets = []
const codes = {}
let unanswered = 0
let wroteOrEnded = 0
let ended = 0
for (let i = 0; i < Number(count); i++) {
  const socket = connect(Number(port), '127.0.0.1')
  sockets.push(socket)
  let text = ''
  let wrote = false
  let over = false
  const written = () => { if (!wrote) { wrote = true; if (++wroteOrEnded === Number(count)) process.stdout.write('ready\n') } }
  const end = (answered) => {
    if (over) return
    over = true
    ended++
    if (!answered) unanswered++
    written()
  }
  socket.on('data', chunk => {
    text += chunk
    const code = /"error":"([a-z_]+)"/.exec(text)?.[1]
    if (code !== undefined && !over) { codes[code] = (codes[code] ?? 0) + 1; end(true) }
  })
  socket.on('error', () => { end(false) })
  socket.on('close', () => { end(false) })
  socket.on('connect', () => { socket.write(framed, written) })
}
process.stdin.resume()
process.stdin.on('end', async () => {
  const allEnded = () => mode !== 'oversized' || ended >= Number(count)
  const deadline = Date.now() + SETTLE_MS
  while (!allEnded() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
  const open = Number(count) - ended
  for (const socket of sockets) socket.destroy()
  process.stdout.write(`${JSON.stringify({ codes, unanswered, open })}\n`)
  process.exit(0)
})
