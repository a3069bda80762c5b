/*
 * <ranking-board>: a game's board on any web page (docs/embed.md), from one
 * script tag and one element. Built on Lit (bundled: the page needs no
 * framework), in a shadow root styled by constructed style sheets, so a
 * page's strict CSP (no inline style or script) does not stop it. It reads
 * the public API-key actions of the service it was loaded from (CORS):
 * `boards` for the board's name and score format, `top` or the `live`
 * stream, and `around` for a player's neighbourhood.
 */
import { LitElement, css, html, nothing, type PropertyValues, type TemplateResult } from 'lit'
import { DEFAULT_SCORE_FORMAT, formatScore, type ScoreFormat } from './format.js'

import { EMBED_VERSION } from './embed-version.js'
export { EMBED_VERSION }

/** A stream refused or cut off is tried again after this, doubled each time up to a minute. */
const RETRY_MS = 5_000
const MAX_RETRY_MS = 60_000
/** The neighbourhood is read again after a live frame, at most this often. */
const AROUND_EVERY_MS = 2_000
/** Entries read around the player, above and below. */
const AROUND_SPAN = 2

interface Entry { rank: number, player_name: string, score: number }
interface Top { total: number, items: Entry[] }
interface Around { total: number, player: { rank: number | null, best_score: number | null }, items: Entry[] }
interface BoardInfo { board_id: string, name: string, format: ScoreFormat }
type Answer<T> = { ok: true, data: T } | { ok: false, error: string, message: string }

/** Errors after which trying again cannot help until the page changes the element (a bad key, game or board). */
const FINAL = new Set(['invalid_key', 'key_revoked', 'key_game_mismatch', 'invalid_game', 'invalid_param', 'not_found', 'missing_param'])

// The service is the origin the script came from (a classic <script src>); a module import says it with `service`.
const scriptOrigin = typeof document !== 'undefined' && document.currentScript instanceof HTMLScriptElement && document.currentScript.src !== ''
  ? new URL(document.currentScript.src).origin
  : undefined

export class RankingBoardElement extends LitElement {
  static readonly version = EMBED_VERSION

  static override properties = {
    game: { type: String },
    apiKey: { type: String, attribute: 'api-key' },
    board: { type: String },
    period: { type: String },
    limit: { type: Number },
    around: { type: String },
    live: { type: Boolean },
    service: { type: String },
    locale: { type: String },
    heading: { type: String },
    top: { state: true },
    neighbours: { state: true },
    info: { state: true },
    problem: { state: true },
    connected: { state: true },
    gaveUp: { state: true },
    announcement: { state: true }
  }

  /** The game's id (required). */
  declare game: string
  /** A public API key of the game (required). */
  declare apiKey: string
  /** A named board's id; none: the game's own board. */
  declare board: string | undefined
  /** all (default), daily, weekly or monthly. */
  declare period: string | undefined
  /** Entries shown, 1 to 100 (default 10). */
  declare limit: number
  /** A player whose neighbourhood is shown under the top (and whose row is marked). */
  declare around: string | undefined
  /** Whether the board follows changes as they happen (the live stream). */
  declare live: boolean
  /** The service's origin; by default the origin the script was loaded from. */
  declare service: string | undefined
  /** The locale scores are written in; by default the browser's. */
  declare locale: string | undefined
  /** The caption; by default the board's name. */
  declare heading: string | undefined

  declare private top: Top | undefined
  declare private neighbours: Around | undefined
  declare private info: BoardInfo | undefined
  declare private problem: string | undefined
  declare private connected: boolean
  /** The live stream ended for a reason waiting cannot change: no more tries until an attribute changes. */
  declare private gaveUp: boolean
  declare private announcement: string

  private stream: EventSource | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private retryMs = RETRY_MS
  private aroundTimer: ReturnType<typeof setTimeout> | undefined
  private aroundReadAt = 0
  /** Whether the board's name and format have been read (a failed read is tried again with the next top). */
  private infoRead = false
  private readingInfo = false
  /** Bumped whenever what the element shows is chosen again: answers to an older choice are dropped. */
  private generation = 0
  private leader: string | undefined
  private aroundRank: number | null | undefined

  constructor () {
    super()
    this.game = ''
    this.apiKey = ''
    this.limit = 10
    this.live = false
    this.connected = false
    this.gaveUp = false
    this.announcement = ''
  }

  static override styles = css`
    :host {
      /* Follows the page: its color-scheme (light, dark or both) picks the colours below. */
      color-scheme: inherit;
      display: block;
      min-width: 0;
      max-width: 100%;
      font: var(--ranking-board-font, inherit);
      color: var(--ranking-board-color, light-dark(#1f2328, #e6edf3));
      background: var(--ranking-board-background, light-dark(#ffffff, #161b22));
      border: 1px solid var(--ranking-board-border, light-dark(#d0d7de, #30363d));
      border-radius: var(--ranking-board-radius, 0.5rem);
      padding: var(--ranking-board-padding, 0.75rem);
      box-sizing: border-box;
      container-type: inline-size;
    }
    :host([hidden]) { display: none; }
    /* The rank and the score take the width they need (a score is never cut); the name wraps in what is left. */
    table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
    caption { text-align: start; font-weight: 600; font-size: 1.05em; padding-bottom: 0.4rem; overflow-wrap: anywhere; }
    th, td { padding: 0.3rem 0.35rem; text-align: start; border-top: 1px solid var(--ranking-board-rule, light-dark(#eaeef2, #21262d)); }
    thead th { border-top: none; font-size: 0.8em; font-weight: 600; color: var(--ranking-board-muted, light-dark(#57606a, #8b949e)); }
    .rank { width: 1%; white-space: nowrap; text-align: end; color: var(--ranking-board-muted, light-dark(#57606a, #8b949e)); font-weight: 400; }
    /* A long name wraps (never cut: the whole name stays readable at 320 px, on touch screens too). */
    .name { overflow-wrap: anywhere; }
    /* A score's figure is never broken; its unit may go under it on a narrow screen (scoreText). */
    .score { text-align: end; }
    .figure { white-space: nowrap; }
    /* In a narrow box a unit goes under its figure, leaving the names the room. */
    @container (max-width: 24rem) { .unit { display: block; } }
    tr.me > * { background: var(--ranking-board-highlight, light-dark(#fff8c5, #3b2e00)); font-weight: 600; }
    .status { margin: 0.4rem 0 0; font-size: 0.85em; color: var(--ranking-board-muted, light-dark(#57606a, #8b949e)); display: flex; gap: 0.5rem; justify-content: space-between; flex-wrap: wrap; }
    .problem { color: var(--ranking-board-error, light-dark(#b42318, #ff8182)); }
    .live::before { content: ''; display: inline-block; width: 0.5em; height: 0.5em; border-radius: 50%; margin-inline-end: 0.3em; background: var(--ranking-board-accent, light-dark(#1a7f37, #3fb950)); vertical-align: 0.08em; }
    .live.off::before { background: var(--ranking-board-muted, light-dark(#57606a, #8b949e)); }
    .around { margin-top: 0.6rem; }
    .announce { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  `

  override connectedCallback (): void {
    super.connectedCallback()
    // Put back on the page after being taken off it: start again (the first time, the first update loads).
    if (this.hasUpdated) this.reload()
  }

  override disconnectedCallback (): void {
    super.disconnectedCallback()
    this.stop()
  }

  override willUpdate (changed: PropertyValues<this>): void {
    const chosen = ['game', 'apiKey', 'board', 'period', 'limit', 'around', 'live', 'service'] as const
    // The first update loads, with every attribute and property set by then; a later change of what is shown loads again.
    if (!this.hasUpdated || chosen.some(name => changed.has(name))) this.reload()
  }

  /** The service's origin, without a trailing slash. */
  private get origin (): string {
    return (this.service ?? scriptOrigin ?? window.location.origin).replace(/\/+$/, '')
  }

  /** An action's URL: the key, the game and the board chosen, and `extra`. */
  private url (action: string, extra: Record<string, string> = {}): string {
    const query = new URLSearchParams({ action, api_key: this.apiKey, game_id: this.game })
    if (this.board !== undefined && this.board !== '') query.set('board', this.board)
    if (this.period !== undefined && this.period !== '' && action !== 'boards') query.set('period', this.period)
    for (const [name, value] of Object.entries(extra)) query.set(name, value)
    return `${this.origin}/api/rank?${query.toString()}`
  }

  private async read<T> (action: string, extra?: Record<string, string>): Promise<Answer<T>> {
    try {
      const response = await fetch(this.url(action, extra), { credentials: 'omit', cache: 'no-store' })
      return await response.json() as Answer<T>
    } catch {
      return { ok: false, error: 'unavailable', message: 'The ranking service could not be reached.' }
    }
  }

  private get shownLimit (): number {
    return Number.isInteger(this.limit) && this.limit >= 1 && this.limit <= 100 ? this.limit : 10
  }

  private stop (): void {
    this.generation++
    this.stream?.close()
    this.stream = undefined
    clearTimeout(this.retryTimer)
    clearTimeout(this.aroundTimer)
    this.aroundTimer = undefined
    this.connected = false
  }

  /** Starts over with what the attributes say now. */
  private reload (): void {
    this.stop()
    this.top = undefined
    this.neighbours = undefined
    this.problem = undefined
    this.leader = undefined
    this.aroundRank = undefined
    this.info = undefined
    this.infoRead = false
    this.gaveUp = false
    this.retryMs = RETRY_MS
    // Off the page, nothing is read (connectedCallback starts again).
    if (!this.isConnected) return
    if (this.game === '' || this.apiKey === '') {
      this.problem = 'Set the game and api-key attributes.'
      return
    }
    const generation = this.generation
    this.readInfo(generation)
    if (this.live) this.watch(generation)
    else this.readTop(generation)
  }

  /** The board's name and score format (the `boards` action). */
  private async readInfo (generation: number): Promise<void> {
    this.readingInfo = true
    const answer = await this.read<{ items: BoardInfo[] }>('boards')
    this.readingInfo = false
    if (generation !== this.generation || !answer.ok) return
    const id = this.board === undefined || this.board === '' ? 'default' : this.board
    this.info = answer.data.items.find(item => item.board_id === id)
    this.infoRead = true
  }

  private async readTop (generation: number): Promise<void> {
    const answer = await this.read<Top>('top', { limit: String(this.shownLimit) })
    if (generation !== this.generation) return
    if (!answer.ok) {
      this.problem = answer.message
      return
    }
    this.showTop(answer.data)
    await this.readAround(generation)
  }

  /** The live stream: the top at once and on every change; reconnects by itself. */
  private watch (generation: number): void {
    const stream = this.stream = new EventSource(this.url('live', { limit: String(this.shownLimit) }))
    stream.addEventListener('open', () => {
      if (generation !== this.generation) return
      this.connected = true
    })
    stream.addEventListener('top', (event) => {
      if (generation !== this.generation) return
      this.retryMs = RETRY_MS
      this.connected = true
      this.problem = undefined
      this.showTop(JSON.parse((event as MessageEvent<string>).data) as Top)
      this.scheduleAround(generation)
    })
    stream.addEventListener('error', (event) => {
      if (generation !== this.generation) return
      this.connected = false
      // An `event: error` frame carries the envelope: why the service ended the stream.
      const data = (event as MessageEvent<string | undefined>).data
      const ended = typeof data === 'string' ? JSON.parse(data) as Answer<never> : undefined
      if (ended !== undefined) stream.close()
      // The browser tries again by itself after a dropped connection (readyState CONNECTING);
      // a stream it gave up on, or one the service ended, is this element's to try again.
      if (stream.readyState === EventSource.CLOSED) this.streamEnded(generation, ended !== undefined && !ended.ok ? ended : undefined)
    })
  }

  /**
   * A stream that ended (`why`: the service's reason), or that the service
   * refused as it opened (an envelope, not a stream: the browser cannot say
   * why): the top read once, which shows the board meanwhile and says why;
   * then the stream tried again, later each time, unless waiting cannot help.
   */
  private async streamEnded (generation: number, why: { error: string, message: string } | undefined): Promise<void> {
    if (why === undefined || !FINAL.has(why.error)) {
      const answer = await this.read<Top>('top', { limit: String(this.shownLimit) })
      if (generation !== this.generation) return
      if (answer.ok) this.showTop(answer.data)
      else why ??= answer
    }
    if (why !== undefined && (why.error !== 'unavailable' || this.top === undefined)) this.problem = why.message
    if (why !== undefined && FINAL.has(why.error)) {
      this.gaveUp = true
      return
    }
    this.retryTimer = setTimeout(() => { if (generation === this.generation) this.watch(generation) }, this.retryMs)
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS)
  }

  private scheduleAround (generation: number): void {
    if (this.around === undefined || this.around === '' || this.aroundTimer !== undefined) return
    const wait = Math.max(0, this.aroundReadAt + AROUND_EVERY_MS - Date.now())
    this.aroundTimer = setTimeout(() => {
      this.aroundTimer = undefined
      this.readAround(generation)
    }, wait)
  }

  private async readAround (generation: number): Promise<void> {
    if (this.around === undefined || this.around === '') return
    this.aroundReadAt = Date.now()
    const answer = await this.read<Around>('around', { player_name: this.around, before: String(AROUND_SPAN), after: String(AROUND_SPAN) })
    if (generation !== this.generation || !answer.ok) return
    this.neighbours = answer.data
    const rank = answer.data.player.rank
    if (this.aroundRank !== undefined && rank !== this.aroundRank && rank !== null) this.announcement = `${this.around} is now number ${rank}.`
    this.aroundRank = rank
  }

  private showTop (top: Top): void {
    this.top = top
    if (!this.infoRead && !this.readingInfo) this.readInfo(this.generation)
    const leader = top.items[0]?.player_name
    // The live region speaks when the lead changes, not on every frame.
    if (this.leader !== undefined && leader !== undefined && leader !== this.leader) this.announcement = `${leader} now leads.`
    this.leader = leader
  }

  /** The locale attribute, if it is one the browser knows: else the browser's own. */
  private get chosenLocale (): string | undefined {
    if (this.locale === undefined || this.locale === '') return undefined
    try {
      return Intl.NumberFormat.supportedLocalesOf(this.locale).length > 0 ? this.locale : undefined
    } catch {
      // Not a locale at all (en_US): the browser's.
      return undefined
    }
  }

  private get format (): ScoreFormat {
    return this.info?.format ?? DEFAULT_SCORE_FORMAT
  }

  private rows (items: Entry[]): TemplateResult[] {
    const locale = this.chosenLocale
    return items.map(item => {
      const me = item.player_name === this.around
      return html`<tr part=${me ? 'row me' : 'row'} class=${me ? 'me' : ''} aria-current=${me ? 'true' : nothing}>
        <td part="rank" class="rank">${item.rank}</td>
        <th part="name" class="name" scope="row" title=${item.player_name}><bdi>${item.player_name}</bdi></th>
        <td part="score" class="score">${scoreText(formatScore(item.score, this.format, locale), this.format)}</td>
      </tr>`
    })
  }

  private table (caption: string, items: Entry[], extraPart = ''): TemplateResult {
    return html`<table part=${`table${extraPart}`} class=${extraPart.trim()}>
      <caption part="caption">${caption}</caption>
      <thead><tr><th part="header" scope="col" class="rank">#</th><th part="header" scope="col">Player</th><th part="header" scope="col" class="score">Score</th></tr></thead>
      <tbody>${this.rows(items)}</tbody>
    </table>`
  }

  override render (): TemplateResult {
    const caption = this.heading ?? this.info?.name ?? 'Leaderboard'
    const top = this.top
    // The neighbourhood of a player below the top, from the first rank the top does not show.
    const lastShown = top?.items.at(-1)?.rank ?? 0
    const aroundShown = this.neighbours !== undefined && this.neighbours.player.rank !== null && top !== undefined && this.neighbours.player.rank > lastShown
    const players = top === undefined ? '' : top.total === 0 ? 'No scores yet.' : `${top.total.toLocaleString(this.chosenLocale)} player${top.total === 1 ? '' : 's'}`
    return html`
      ${this.table(caption, top?.items ?? [])}
      ${aroundShown ? this.table(`Around ${this.around ?? ''}`, (this.neighbours?.items ?? []).filter(item => item.rank > lastShown), ' around') : nothing}
      <p part="status" class="status">
        ${this.problem === undefined
          ? html`<span>${top === undefined ? 'Loading…' : players}</span>`
          // A new element each time, so a screen reader announces the alert.
          : html`<span class="problem" role="alert">${this.problem}</span>`}
        ${this.live && !this.gaveUp ? html`<span part="live" class=${this.connected ? 'live' : 'live off'}>${this.connected ? 'Live' : 'Reconnecting…'}</span>` : nothing}
      </p>
      <p class="announce" role="status" aria-live="polite">${this.announcement}</p>`
  }
}

/** A score's text as its figure (never broken) and its unit (which may wrap under it, after the no-break space formatScore puts before it). */
function scoreText (text: string, format: ScoreFormat): TemplateResult {
  if (format.unit === '' || !text.endsWith(format.unit)) return html`<span class="figure">${text}</span>`
  const figure = text.slice(0, text.length - format.unit.length)
  return html`<span class="figure">${figure}</span><span class="unit">${format.unit}</span>`
}
