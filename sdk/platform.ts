/*
 * The kit for games hosted on the platform (docs/kit.md): what a game in the
 * play page's frame needs, in a few calls. It wraps the play page's
 * `window.parent.__platform`, so a game never reads the parent's internals
 * or handles the session cookie: the browser sends the cookie with the
 * kit's same-origin calls. Served as /sdk/platform.js (a classic script whose
 * global is RankingPlatform) and published in the SDK package as
 * `@ranking-service/sdk/platform`.
 *
 *   const platform = await RankingPlatform.ready()
 *   if (platform.canSubmit) await platform.startRun()
 *   const result = await platform.submit(score)
 *   platform.on('achievement', (item) => showBanner(item.name))
 */
import { DEFAULT_SCORE_FORMAT, formatScore, type ScoreFormat } from './format.js'

/** A board of the game, as the play page describes it. */
export interface PlatformBoard { id: string, name: string, periods: string[], order: 'asc' | 'desc', format: ScoreFormat }

/** A started run: the play a score is tied to (docs/interface.md#runs). */
export interface PlatformRun { run_id: string, started_at: string, expires_at: string }

/** An achievement as a player's list shows it. */
export interface PlatformAchievement { achievement_id: string, name: string, description: string, points: number, icon_url: string | null, unlocked_at: string | null }

/** What the service answered, in its envelope. */
export type PlatformAnswer<T> = { ok: true, data: T } | { ok: false, error: string, message: string }

/** A submit's answer (submit-self, docs/interface.md#submit-self). */
export interface PlatformSubmitted { score: number, improved: boolean, best_score: number | null, rank: number | null, total_players: number, is_dev_record: boolean, is_admin_record: boolean, board?: string, held?: true, unlocked?: string[] }

/** An unlock's answer (unlock-self). */
export interface PlatformUnlocked { achievement_id: string, player_name: string, unlocked: boolean, unlocked_at: string }

/** The events a game may show a message for. */
export interface PlatformEvents {
  /** A submit that beat the player's best. */
  best: { score: number, rank: number | null, board: string }
  /** The player fell on the board the play page shows: someone passed them. */
  overtaken: { rank: number, previous: number, board: string }
  /** The player unlocked an achievement (by a score, or unlock()). */
  achievement: PlatformAchievement
}

/** The play page's side (public/play.js): what `window.__platform` holds. */
interface Host {
  gameId: string
  username: string | null
  guest?: boolean
  canSubmit: boolean
  runs: 'off' | 'optional' | 'required'
  format: ScoreFormat
  boards: PlatformBoard[]
  ready?: boolean
  startRun?: () => Promise<PlatformRun | null>
  reportPlay?: () => Promise<unknown>
  /** The player's standing or achievements may have changed: the page reads them again. */
  refresh?: () => void
  on?: <K extends keyof PlatformEvents>(type: K, listener: (detail: PlatformEvents[K]) => void) => () => void
}

type Listener<K extends keyof PlatformEvents> = (detail: PlatformEvents[K]) => void

/** What submit and unlock answer, without calling the service, when nobody plays as anyone. */
const NOBODY = 'Nobody is playing as anyone: log in or play as a guest on the play page.'

/** How long ready() waits for the play page before it answers as a game outside it. */
const READY_TIMEOUT_MS = 10_000

export class Platform {
  /** The game's id ('' outside the play page). */
  readonly gameId: string
  /** The player: a signed-in user or a guest; null when nobody plays as anyone (or outside the play page). */
  readonly player: { name: string, guest: boolean } | null
  /** Whether a score submitted now can count: a player, and a game that is approved. */
  readonly canSubmit: boolean
  /** The game's runs setting: a game that keeps runs starts one as play begins. */
  readonly runs: 'off' | 'optional' | 'required'
  /** The game's named boards (the game's own board is not among them). */
  readonly boards: readonly PlatformBoard[]
  /** The run of the play going on; after a submit, the run that took it (which still vouches for an unlock). */
  private run: PlatformRun | null = null
  private lastRun: PlatformRun | null = null
  /** The run being started, which a submit made meanwhile waits for; the count tells a late answer to an older start. */
  private starting: Promise<PlatformRun | null> | null = null
  private starts = 0
  private readonly listeners = new Map<keyof PlatformEvents, Set<(detail: never) => void>>()

  constructor (private readonly host: Host | null) {
    this.gameId = host?.gameId ?? ''
    this.player = host?.username == null ? null : { name: host.username, guest: host.guest === true }
    this.canSubmit = host?.canSubmit === true
    this.runs = host?.runs ?? 'off'
    this.boards = host?.boards ?? []
    // The page's own events (overtaken, achievements it saw) reach the game's listeners.
    for (const type of ['overtaken', 'achievement'] as const) host?.on?.(type, (detail) => { this.emit(type, detail) })
  }

  /** Whether the game runs inside the play page. */
  get hosted (): boolean {
    return this.host !== null
  }

  /**
   * Starts a run as play begins, where the game keeps runs (else null). The
   * next submit goes with it; the page reports play time for it meanwhile.
   */
  async startRun (): Promise<PlatformRun | null> {
    const start = ++this.starts
    this.run = null
    if (!this.canSubmit || this.runs === 'off' || this.host?.startRun === undefined) {
      this.starting = null
      return null
    }
    const starting = this.starting = this.host.startRun().catch(() => null)
    const run = await starting
    // A start made after this one has the say.
    if (start === this.starts) {
      this.run = run
      this.starting = null
    }
    return run
  }

  /**
   * Submits a score for the player (submit-self), to the game's own board or
   * `board`, with the run started last (its play reported first), and tells
   * the page, which refreshes its board. `meta`: what the score's entry keeps.
   */
  async submit (score: number, options: { board?: string, meta?: unknown } = {}): Promise<PlatformAnswer<PlatformSubmitted>> {
    if (!this.canSubmit) return { ok: false, error: 'not_logged_in', message: this.player === null ? NOBODY : 'This game does not take scores right now.' }
    const fields: Record<string, string> = { game_id: this.gameId, score: String(score) }
    if (options.board !== undefined) fields.board = options.board
    if (options.meta !== undefined) fields.meta = JSON.stringify(options.meta)
    // A run still starting (startRun() not awaited) goes with this score.
    if (this.starting !== null) await this.starting
    const run = this.run
    if (run !== null) {
      await this.host?.reportPlay?.().catch(() => null)
      fields.run_id = run.run_id
    }
    const answer = await call<PlatformSubmitted>('/api/rank?action=submit-self', fields)
    // The run is spent once the service has answered for it; a score that never reached it may be sent again with it.
    if (run !== null && !(!answer.ok && answer.error === 'unavailable')) {
      if (this.run === run) this.run = null
      this.lastRun = run
    }
    if (answer.ok) {
      this.host?.refresh?.()
      if (answer.data.improved && answer.data.held !== true) this.emit('best', { score, rank: answer.data.rank, board: options.board ?? 'default' })
    }
    return answer
  }

  /**
   * Unlocks one of the game's achievements for the player (unlock-self), with
   * the run going on, or else the run of the last submit (a game that
   * requires runs takes no unlock without one), its play reported first: an
   * achievement may ask for that much of it (min_run_seconds).
   */
  async unlock (achievementId: string): Promise<PlatformAnswer<PlatformUnlocked>> {
    if (!this.canSubmit) return { ok: false, error: 'not_logged_in', message: NOBODY }
    const fields: Record<string, string> = { game_id: this.gameId, achievement_id: achievementId }
    if (this.starting !== null) await this.starting
    const run = this.run ?? this.lastRun
    if (run !== null) {
      await this.host?.reportPlay?.().catch(() => null)
      fields.run_id = run.run_id
    }
    const answer = await call<PlatformUnlocked>('/api/rank?action=unlock-self', fields)
    if (answer.ok && answer.data.unlocked) this.host?.refresh?.()
    return answer
  }

  /** A score as a board of the game shows it (docs/interface.md#score-formats), in the player's locale. */
  formatScore (score: number, board?: string): string {
    const format = board === undefined || board === 'default' ? this.host?.format : this.boards.find(named => named.id === board)?.format
    return formatScore(score, format ?? DEFAULT_SCORE_FORMAT)
  }

  /** Calls `listener` on each event of `type`; returns what stops it. */
  on<K extends keyof PlatformEvents>(type: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(type)
    if (set === undefined) this.listeners.set(type, set = new Set())
    set.add(listener as (detail: never) => void)
    return () => { set.delete(listener as (detail: never) => void) }
  }

  private emit<K extends keyof PlatformEvents>(type: K, detail: PlatformEvents[K]): void {
    for (const listener of this.listeners.get(type) ?? []) {
      try {
        (listener as Listener<K>)(detail)
      } catch (error) {
        // One listener's fault does not stop the others, nor the kit.
        setTimeout(() => { throw error })
      }
    }
  }
}

/** A same-origin form POST; the browser sends the session cookie. */
async function call<T> (url: string, fields: Record<string, string>): Promise<PlatformAnswer<T>> {
  try {
    const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), credentials: 'same-origin' })
    return await response.json() as PlatformAnswer<T>
  } catch {
    return { ok: false, error: 'unavailable', message: 'The ranking service could not be reached.' }
  }
}

/** The play page's __platform, when this frame is its game and the page is ready; else null. */
function readyHost (): Host | null | undefined {
  if (window.parent === window) return null
  try {
    const host = (window.parent as Window & { __platform?: Host }).__platform
    return host?.ready === true ? host : undefined
  } catch {
    // A parent of another origin: not the play page.
    return null
  }
}

let readying: Promise<Platform> | undefined

/**
 * The platform, once the play page around the game is ready (at most 10 s);
 * outside the play page, a platform with no player, that submits nothing.
 */
export async function ready (): Promise<Platform> {
  readying ??= new Promise<Platform>((resolve) => {
    const deadline = Date.now() + READY_TIMEOUT_MS
    const check = (): void => {
      const host = readyHost()
      if (host !== undefined) resolve(new Platform(host))
      else if (Date.now() > deadline) resolve(new Platform(null))
      else setTimeout(check, 25)
    }
    check()
  })
  return await readying
}
