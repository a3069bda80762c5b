import { createParser } from 'eventsource-parser'
import { savedToken } from './api.js'

/**
 * A live board (GET /admin/games/:id/live): Server-Sent Events read with
 * fetch, because EventSource cannot send the token as a header and the
 * token never goes in a URL. Reconnects after `retry` (2 s) when the stream
 * ends, until stopped. Returns the function that stops it.
 */
export function followLive (url: string, onTop: (top: any) => void, onProblem: (sentence: string | null) => void): () => void {
  const controller = new AbortController()
  let retryMs = 2000
  async function connect (): Promise<void> {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${savedToken() ?? ''}` }, signal: controller.signal, credentials: 'omit', cache: 'no-store' })
        if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          // A check failed: the envelope says why, and retrying would not help.
          const answer = await response.json().catch(() => ({})) as { message?: string }
          onProblem(answer.message ?? 'The live board could not be opened.')
          return
        }
        onProblem(null)
        const parser = createParser({
          onEvent (event) {
            if (event.event === 'top') onTop(JSON.parse(event.data))
            if (event.event === 'error') onProblem((JSON.parse(event.data) as { message?: string }).message ?? 'The live board ended.')
          },
          onRetry (ms) { retryMs = ms }
        })
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          parser.feed(value)
        }
      } catch {
        if (controller.signal.aborted) return
        onProblem('The live board lost its connection; reconnecting.')
      }
      await new Promise(resolve => setTimeout(resolve, retryMs))
    }
  }
  void connect()
  return () => { controller.abort() }
}
