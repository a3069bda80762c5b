/*
 * <ranking-games>: one of the platform's lists of games (docs/embed.md#games)
 * on any web page: the top-rated, most-played, most-players or new games of
 * the service it was loaded from, as GET /api/games ranks them (CORS, no
 * key: the list is public). Built like <ranking-board>: Lit bundled in, a
 * shadow root styled by constructed style sheets (a strict CSP is fine).
 * "More" walks on with the list's cursor, in the order the first page began.
 */
import { LitElement, css, html, nothing, type PropertyValues, type TemplateResult } from 'lit'
import { GAME_LIST_HEADINGS, countText, playedText, ratingLabel, starsText, type GameListItem } from './game-card.js'
import { EMBED_VERSION } from './embed-version.js'

type Sort = keyof typeof GAME_LIST_HEADINGS
interface Page { sort: Sort, items: GameListItem[], total: number, next_cursor: string | null }
type Answer<T> = { ok: true, data: T } | { ok: false, error: string, message: string }

const SORTS = Object.keys(GAME_LIST_HEADINGS) as Sort[]

const scriptOrigin = typeof document !== 'undefined' && document.currentScript instanceof HTMLScriptElement && document.currentScript.src !== ''
  ? new URL(document.currentScript.src).origin
  : undefined

export class RankingGamesElement extends LitElement {
  static readonly version = EMBED_VERSION

  static override properties = {
    sort: { type: String },
    limit: { type: Number },
    service: { type: String },
    locale: { type: String },
    heading: { type: String },
    items: { state: true },
    total: { state: true },
    cursor: { state: true },
    problem: { state: true },
    loading: { state: true }
  }

  /** top_rated (the default), most_played, players or new. */
  declare sort: string | undefined
  /** Games per page, 1 to 50 (default 10). */
  declare limit: number
  /** The service's origin; by default the origin the script was loaded from. */
  declare service: string | undefined
  /** The locale numbers are written in; by default the browser's. */
  declare locale: string | undefined
  /** The caption; by default the list's name ("Top rated"). */
  declare heading: string | undefined

  declare private items: GameListItem[] | undefined
  declare private total: number
  declare private cursor: string | null
  declare private problem: string | undefined
  declare private loading: boolean
  /** Bumped when what is shown is chosen again: answers to an older choice are dropped. */
  private generation = 0

  constructor () {
    super()
    this.limit = 10
    this.total = 0
    this.cursor = null
    this.loading = false
  }

  static override styles = css`
    :host {
      color-scheme: inherit;
      display: block;
      min-width: 0;
      max-width: 100%;
      font: var(--ranking-games-font, inherit);
      color: var(--ranking-games-color, light-dark(#1f2328, #e6edf3));
      background: var(--ranking-games-background, light-dark(#ffffff, #161b22));
      border: 1px solid var(--ranking-games-border, light-dark(#d0d7de, #30363d));
      border-radius: var(--ranking-games-radius, 0.5rem);
      padding: var(--ranking-games-padding, 0.75rem);
      box-sizing: border-box;
    }
    :host([hidden]) { display: none; }
    h2 { margin: 0 0 0.5rem; font-size: 1.05em; font-weight: 600; overflow-wrap: anywhere; }
    ol { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 13rem), 1fr)); gap: 0.5rem; }
    li { position: relative; padding: 0.6rem 0.75rem; border: 1px solid var(--ranking-games-rule, light-dark(#eaeef2, #30363d)); border-radius: 0.45rem; min-width: 0; }
    li:focus-within { outline: 2px solid var(--ranking-games-accent, light-dark(#0969da, #4493f8)); outline-offset: 1px; }
    .name { font-weight: 600; overflow-wrap: anywhere; margin: 0 0 0.2rem; }
    .name a { color: inherit; text-decoration: none; }
    /* The whole card is the link's target. */
    .name a::after { content: ''; position: absolute; inset: 0; }
    .name a:focus-visible { outline: none; }
    li:hover { border-color: var(--ranking-games-accent, light-dark(#0969da, #4493f8)); }
    p { margin: 0.1rem 0; font-size: 0.9em; }
    .muted, .status { color: var(--ranking-games-muted, light-dark(#57606a, #8b949e)); }
    .star { color: var(--ranking-games-star, light-dark(#bf8700, #d29922)); }
    .status { margin: 0.5rem 0 0; font-size: 0.85em; display: flex; gap: 0.5rem; justify-content: space-between; align-items: center; flex-wrap: wrap; }
    .problem { color: var(--ranking-games-error, light-dark(#b42318, #ff8182)); }
    button { font: inherit; font-size: 0.9em; padding: 0.35rem 0.8rem; border-radius: 999px; border: 1px solid var(--ranking-games-border, light-dark(#d0d7de, #30363d)); background: transparent; color: inherit; cursor: pointer; }
    button:focus-visible { outline: 2px solid var(--ranking-games-accent, light-dark(#0969da, #4493f8)); outline-offset: 2px; }
  `

  override willUpdate (changed: PropertyValues<this>): void {
    if (!this.hasUpdated || changed.has('sort') || changed.has('limit') || changed.has('service')) this.reload()
  }

  override connectedCallback (): void {
    super.connectedCallback()
    if (this.hasUpdated) this.reload()
  }

  private get chosenSort (): Sort {
    return SORTS.includes(this.sort as Sort) ? this.sort as Sort : 'top_rated'
  }

  private get chosenLimit (): number {
    return Number.isInteger(this.limit) && this.limit >= 1 && this.limit <= 50 ? this.limit : 10
  }

  private get chosenLocale (): string | undefined {
    if (this.locale === undefined || this.locale === '') return undefined
    try {
      return Intl.NumberFormat.supportedLocalesOf(this.locale).length > 0 ? this.locale : undefined
    } catch {
      return undefined
    }
  }

  private reload (): void {
    this.generation++
    this.items = undefined
    this.cursor = null
    this.problem = undefined
    if (this.isConnected) this.readPage(null)
  }

  /** A page of the list: the first (no cursor), or the next of the walk. */
  private async readPage (cursor: string | null): Promise<void> {
    const generation = this.generation
    const query = new URLSearchParams({ sort: this.chosenSort, limit: String(this.chosenLimit) })
    if (cursor !== null) query.set('cursor', cursor)
    const origin = (this.service ?? scriptOrigin ?? window.location.origin).replace(/\/+$/, '')
    this.loading = true
    let answer: Answer<Page>
    try {
      answer = await (await fetch(`${origin}/api/games?${query.toString()}`, { credentials: 'omit', cache: 'no-store' })).json() as Answer<Page>
    } catch {
      answer = { ok: false, error: 'unavailable', message: 'The ranking service could not be reached.' }
    }
    if (generation !== this.generation) return
    this.loading = false
    if (!answer.ok) {
      this.problem = answer.message
      return
    }
    this.problem = undefined
    this.items = [...(this.items ?? []), ...answer.data.items]
    this.total = answer.data.total
    this.cursor = answer.data.next_cursor
  }

  private card (item: GameListItem): TemplateResult {
    const locale = this.chosenLocale
    const stars = starsText(item.weighted, locale)
    const thisWeek = this.chosenSort === 'most_played'
    const played = playedText(thisWeek ? item.recent_playtime_seconds : item.playtime_seconds, thisWeek, locale)
    return html`<li part="card">
      <p part="name" class="name">${item.play_url === null
        ? html`<bdi>${item.name}</bdi>`
        : html`<a href=${item.play_url} target="_top"><bdi>${item.name}</bdi></a>`}</p>
      <p part="rating" aria-label=${ratingLabel(item, locale)}>${stars === null
        ? html`<span class="muted">Not rated yet</span>`
        : html`<span class="star" aria-hidden="true">★</span> <strong>${stars}</strong> <span class="muted">(${countText(item.ratings, 'rating', 'ratings', locale)})</span>`}</p>
      <p part="facts" class="muted">${played} · ${countText(item.players, 'player', 'players', locale)}</p>
    </li>`
  }

  override render (): TemplateResult {
    const items = this.items
    return html`
      <h2 part="heading">${this.heading ?? GAME_LIST_HEADINGS[this.chosenSort]}</h2>
      <ol part="list">${(items ?? []).map(item => this.card(item))}</ol>
      <p part="status" class="status">
        ${this.problem !== undefined
          ? html`<span class="problem" role="alert">${this.problem}</span>`
          : html`<span role="status">${items === undefined ? 'Loading…' : items.length === 0 ? 'No games yet.' : `${items.length} of ${this.total}`}</span>`}
        ${this.cursor !== null && this.problem === undefined
          ? html`<button part="more" type="button" ?disabled=${this.loading} @click=${() => { this.readPage(this.cursor) }}>More games</button>`
          : nothing}
      </p>`
  }
}
