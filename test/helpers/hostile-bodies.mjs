// A hostile client for the body-limit tests, run as its own process so the
// test measures only the service's memory:
//   node hostile-bodies.mjs <port> <mode> <connections> <path>
// oversized: each connection sends the chunked multipart body of the crash
//            report (199 fields of 16 KiB, about 3.4 MB) and never ends it;
// stalled:   each connection sends 12 KiB of a chunked multipart field, then
//            waits, never ending the request.
// All connections are opened at once. The process prints "ready" once every
// connection has written its bytes (or been answered), then, once its
// standard input closes (and, oversized, every connection is answered or
// closed, 10 s at most), a line of JSON with what the service answered.
import { connect } from 'node:net'

const [port, mode, count, path] = process.argv.slice(2)
const boundary = 'B'
const field = (name, size) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${'a'.repeat(size)}\r\n`
const body = mode === 'oversized'
  ? Buffer.from(Array.from({ length: 199 }, (_, i) => field(`f${i}`, 16384)).join(''))
  : Buffer.from(field('f0', 12 * 1024).slice(0, -2)) // the field is still open
const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`
const framed = Buffer.concat([Buffer.from(head), Buffer.from(`${body.length.toString(16)}\r\n`), body])

const sockets = []
const answers = {}
let settled = 0
function settle () {
  if (++settled === Number(count)) process.stdout.write('ready\n')
}
// Connections answered or closed: an oversized body is always answered, and
// the report waits for all of them (10 s at most), since an answer can come
// after the bytes were written. Stalled bodies are held, not answered.
let finished = 0
for (let i = 0; i < Number(count); i++) {
  const socket = connect(Number(port), '127.0.0.1')
  sockets.push(socket)
  let text = ''
  let done = false
  let over = false
  const once = () => { if (!done) { done = true; settle() } }
  const finish = () => { if (!over) { over = true; finished++ } }
  socket.on('data', chunk => {
    text += chunk
    const code = /"error":"([a-z_]+)"/.exec(text)?.[1]
    if (code !== undefined) { answers[code] = (answers[code] ?? 0) + 1; text = ''; once(); finish() }
  })
  socket.on('error', () => { once(); finish() })
  socket.on('close', () => { once(); finish() })
  socket.on('connect', () => { socket.write(framed, once) })
}
process.stdin.resume()
process.stdin.on('end', async () => {
  const allIn = () => mode !== 'oversized' || finished >= Number(count)
  const deadline = Date.now() + 10_000
  while (!allIn() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
  for (const socket of sockets) socket.destroy()
  process.stdout.write(`${JSON.stringify(answers)}\n`)
  process.exit(0)
})
