// The operator API's heavy reads and writes on the largest board
// (docs/guide.md, export and import): the export's rate, first byte and the
// service's peak memory while it streams; the cost of a listing page at the
// top and at the bottom of the board; the import's rate.
import { readFileSync } from 'node:fs'
import { adminCall, adminFetch } from './service.mjs'

/** The resident memory of a process, in bytes (Linux /proc). */
function rssOf (pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? 0 : Number(match[1]) * 1024
}

/** Samples a process's resident memory every 10 ms until stopped; the highest seen. */
function sampleRss (pid) {
  let peak = rssOf(pid)
  const timer = setInterval(() => { peak = Math.max(peak, rssOf(pid)) }, 10)
  return () => { clearInterval(timer); return Math.max(peak, rssOf(pid)) }
}

/** Reads an export as it arrives, keeping only counts and, when asked, calling `onLine` per line. */
async function readExport (response, onLine) {
  const started = performance.now()
  let firstByteMs
  let bytes = 0
  let lines = 0
  let pending = ''
  const decoder = new TextDecoder()
  for await (const chunk of response.body) {
    firstByteMs ??= performance.now() - started
    bytes += chunk.length
    const text = pending + decoder.decode(chunk, { stream: true })
    const parts = text.split('\n')
    pending = parts.pop()
    lines += parts.length
    if (onLine !== undefined) for (const line of parts) await onLine(line)
  }
  if (pending !== '') { lines++; if (onLine !== undefined) await onLine(pending) }
  return { firstByteMs, bytes, lines }
}

async function meanMs (times, request) {
  let total = 0
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    const answer = await request()
    total += performance.now() - started
    if (answer.ok !== true) throw new Error(`a listing page failed: ${JSON.stringify(answer).slice(0, 200)}`)
  }
  return total / times
}

/** One export read whole as it streams: its rate, first byte, size, and the service's resident memory before and at its peak. */
export async function measureExport ({ base, pid, gameId, size, format }) {
  const rssBefore = rssOf(pid)
  const stop = sampleRss(pid)
  const started = performance.now()
  const response = await adminFetch(base, `/admin/games/${gameId}/export?format=${format}`)
  if (response.status !== 200 || !response.headers.get('content-type').startsWith(format === 'csv' ? 'text/csv' : 'application/x-ndjson')) throw new Error(`the ${format} export answered ${response.status} ${await response.text()}`)
  const read = await readExport(response)
  const seconds = (performance.now() - started) / 1000
  const peak = stop()
  const entries = format === 'csv' ? read.lines - 1 : read.lines
  if (entries !== size) throw new Error(`the ${format} export has ${entries} entries, the board ${size}`)
  return { entries, seconds, rate: entries / seconds, firstByteMs: read.firstByteMs, bytes: read.bytes, rssBefore, rssPeak: peak }
}

export async function measureOperator ({ base, pid, gameId, size, smoke }) {
  const result = { size }
  for (const format of ['ndjson', 'csv']) result[format] = await measureExport({ base, pid, gameId, size, format })

  // A listing page of 100 at the top and at the bottom. The bottom page's
  // cursor is made here as the listing makes one (src/operations/index.ts, cursors.board):
  // walking a million entries to reach it would measure the walk.
  const times = smoke ? 5 : 30
  const bottom = Buffer.from(JSON.stringify({ k: 'board', b: '', v: Math.max(0, size - 100), a: '', s: '0', m: '' })).toString('base64url')
  const page = async (cursor) => await (await adminFetch(base, `/admin/games/${gameId}/players?limit=100${cursor === undefined ? '' : `&cursor=${cursor}`}`)).json()
  const last = await page(bottom)
  if (last.data?.items?.[0]?.rank !== Math.max(1, size - 99)) throw new Error(`the bottom page begins at rank ${last.data?.items?.[0]?.rank}`)
  result.topPageMs = await meanMs(times, async () => await page())
  result.bottomPageMs = await meanMs(times, async () => await page(bottom))
  result.searchPageMs = await meanMs(times, async () => await (await adminFetch(base, `/admin/games/${gameId}/players?limit=100&prefix=bench_user_12`)).json())

  // Import: the export streamed into a new game, 100,000 lines a request (as the guide advises for large files).
  const target = `${gameId}_imported`
  await adminCall(base, 'POST', '/admin/games', { game_id: target, max_entries: size * 2 })
  const chunkLines = 100_000
  let batch = []
  const counts = { lines: 0, imported: 0, refused: 0 }
  const send = async () => {
    if (batch.length === 0) return
    const answer = await (await adminFetch(base, `/admin/games/${target}/import`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: batch.join('\n') })).json()
    if (answer.ok !== true) throw new Error(`an import request failed: ${JSON.stringify(answer).slice(0, 300)}`)
    counts.lines += answer.data.lines
    counts.imported += answer.data.imported
    counts.refused += answer.data.refused
    batch = []
  }
  const started = performance.now()
  await readExport(await adminFetch(base, `/admin/games/${gameId}/export`), async line => {
    batch.push(line)
    if (batch.length === chunkLines) await send()
  })
  await send()
  const seconds = (performance.now() - started) / 1000
  if (counts.imported !== size || counts.refused !== 0) throw new Error(`the import stored ${counts.imported} of ${size} entries (${counts.refused} refused)`)
  result.import = { entries: counts.imported, seconds, rate: counts.imported / seconds, requests: Math.ceil(size / chunkLines) }
  return result
}
