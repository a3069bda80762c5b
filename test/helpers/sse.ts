import { waitFor } from './wait.js'

/*
 * A Server-Sent Events client for tests: fetch reads the stream, and each
 * frame (event, data, id) and comment line (a heartbeat) is kept in order.
 */

export interface Frame {
  event: string
  data: string
  id?: string
  retry?: number
}

export interface EventStream {
  status: number
  headers: Headers
  /** The body when the answer is not a stream (an error envelope). */
  body?: string
  frames: Frame[]
  comments: string[]
  /** Resolves once the stream has ended (by the server, or by close()). */
  ended: Promise<void>
  /**
   * The next frame after the `seen` first ones; rejects at once when the
   * stream ends without it, or after `timeoutMs` (waitFor's generous 30 s
   * unless told: a bound that only stops a wait that would never end).
   */
  frame: (seen: number, timeoutMs?: number) => Promise<Frame>
  close: () => void
}

export async function openStream (url: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const frames: Frame[] = []
  const comments: string[] = []
  let finished = false
  const stream: EventStream = {
    status: response.status,
    headers: response.headers,
    frames,
    comments,
    ended: Promise.resolve(),
    async frame (seen, timeoutMs) {
      await waitFor(() => frames.length > seen || finished, {
        what: () => `a frame after the first ${seen} (${frames.length} so far)`,
        ...(timeoutMs === undefined ? {} : { timeoutMs })
      })
      if (frames.length <= seen) throw new Error(`the stream ended after ${frames.length} frames, without a frame after the first ${seen}`)
      return frames[seen] as Frame
    },
    close: () => { controller.abort() }
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    stream.body = await response.text()
    finished = true
    return stream
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    let frame: Partial<Frame> = {}
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true })
        let newline: number
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).replace(/\r$/, '')
          buffered = buffered.slice(newline + 1)
          if (line === '') {
            if (frame.data !== undefined) frames.push({ event: frame.event ?? 'message', data: frame.data, ...(frame.id === undefined ? {} : { id: frame.id }), ...(frame.retry === undefined ? {} : { retry: frame.retry }) })
            frame = {}
          } else if (line.startsWith(':')) {
            comments.push(line.slice(1).trim())
          } else {
            const colon = line.indexOf(':')
            const field = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
            else if (field === 'event') frame.event = value
            else if (field === 'id') frame.id = value
            else if (field === 'retry') frame.retry = Number(value)
          }
        }
      }
    } catch {
      // Aborted by close(), or the connection dropped: the stream has ended either way.
    }
    finished = true
  })()
  return stream
}
