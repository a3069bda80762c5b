import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { ChartBox } from '../charts.js'
import { followLive } from '../live.js'
import { Problem, StackedTable, TableBox, counted, formatSeconds, formatTime, shownScore, useRead } from '../ui.js'
import { BoardTab } from './board.js'
import { BoardsTab } from './boards.js'
import { AchievementsTab } from './achievements.js'
import { ReviewTab } from './review.js'
import { KeysTab } from './keys.js'
import { WebhooksTab } from './webhooks.js'
import { GamejoltTab } from './gamejolt.js'
import { RatingsTab } from './ratings.js'
import { SettingsTab } from './settings.js'
import { AuditList } from './audit.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { GameActivity as Stats, ScoreSpread as Spread } from '../../../src/routes/admin/records.js'
import type { TopResult as Top } from '../../../sdk/answers.js'

const TABS: Array<[string, string]> = [['overview', 'Overview'], ['board', 'Board'], ['boards', 'Boards'], ['achievements', 'Achievements'], ['review', 'Review'], ['ratings', 'Ratings'], ['keys', 'API keys'], ['webhooks', 'Webhooks'], ['gamejolt', 'Game Jolt'], ['settings', 'Settings'], ['audit', 'Audit log']]

/** One game: its tabs, each a page of its own (#/games/<id>/<tab>; the board tab may name a board: #/games/<id>/board/<board id>). */
export function GamePage ({ gameId, tab, boardId }: { gameId: string, tab: string, boardId?: string }) {
  const game = useRead(async () => await api<GameWithStats>('GET', gamePath(gameId)), [gameId])
  const base = `#/games/${encodeURIComponent(gameId)}`
  const record = game.data
  return (
    <>
      <p class='crumbs'><a href='#/games'>Games</a> / <span>{gameId}</span></p>
      <h1>{record?.name ?? gameId} {record !== undefined && (record.approved ? <span class='badge ok'>approved</span> : <span class='badge waiting'>waiting for approval</span>)}</h1>
      <nav class='tabs' aria-label='Game sections'>
        {TABS.map(([name, label]) => <a key={name} href={`${base}/${name}`} aria-current={tab === name ? 'page' : undefined}>{label}</a>)}
      </nav>
      <Problem text={game.problem} />
      {/* Keyed by the game: a tab's state (a new key's secret, a webhook's, a form) never outlives its game, so one game's secret cannot be shown under another's name. */}
      {record !== undefined && record.game_id === gameId && <TabContent key={gameId} game={record} tab={tab} boardId={boardId} onSaved={game.reload} />}
    </>
  )
}

/** The page of one tab. */
function TabContent ({ game, tab, boardId, onSaved }: { game: GameWithStats, tab: string, boardId: string | undefined, onSaved: () => void }) {
  switch (tab) {
    case 'board': return <BoardTab game={game} boardId={boardId} />
    case 'boards': return <BoardsTab game={game} />
    case 'achievements': return <AchievementsTab game={game} />
    case 'review': return <ReviewTab game={game} />
    case 'ratings': return <RatingsTab game={game} onChanged={onSaved} />
    case 'keys': return <KeysTab game={game} />
    case 'webhooks': return <WebhooksTab game={game} />
    case 'gamejolt': return <GamejoltTab game={game} />
    case 'settings': return <SettingsTab game={game} onSaved={onSaved} />
    case 'audit': return <AuditList gameId={game.game_id} />
    default: return <Overview game={game} />
  }
}

const REFRESH_MS = 30_000
/** A change on the live board reads the figures again, at most this often. */
const FOLLOW_MS = 3000
const shortDay = (day: string): string => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
const shortTime = (iso: string): string => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
const plain = (value: number): string => Number.isInteger(value) ? String(value) : value.toFixed(1)

/**
 * The weighted score and the plain average at each day's end (stars out of
 * 5), a day the figures did not change carrying the day before's.
 */
function ratingDays (data: Stats): { weighted: { labels: string[], values: Array<number | null> }, average: { label: string, values: Array<number | null>, color: string, firstLabel: string }, summary: string } {
  let weighted: number | null = null
  let average: number | null = null
  const weightedValues: Array<number | null> = []
  const averageValues: Array<number | null> = []
  for (const day of data.rating_days) {
    if (day.count !== null) {
      weighted = day.weighted === null ? null : Math.round(day.weighted * 50) / 100
      average = day.avg === null ? null : Math.round(day.avg * 50) / 100
    }
    weightedValues.push(weighted)
    averageValues.push(average)
  }
  const now = data.ratings
  return {
    weighted: { labels: data.rating_days.map(day => shortDay(day.day)), values: weightedValues },
    average: { label: 'Average', values: averageValues, color: '#6b7280', firstLabel: 'Weighted by play' },
    summary: now.count === 0 ? 'Nobody has rated the game yet.' : `Now ${((now.weighted ?? 0) / 2).toFixed(2)} stars weighted by play, ${(now.avg / 2).toFixed(2)} on average.`
  }
}

/** The game at a glance: its figures, its charts (refreshed every 30 s) and its live top 10. */
function Overview ({ game }: { game: GameWithStats }) {
  const [turn, setTurn] = useState(0)
  useEffect(() => {
    const timer = setInterval(() => { setTurn(n => n + 1) }, REFRESH_MS)
    return () => { clearInterval(timer) }
  }, [])
  // The board changed: the charts follow, a little later and not more often than FOLLOW_MS.
  const [pending, setPending] = useState(false)
  const boardChanged = useCallback(() => { setPending(true) }, [])
  useEffect(() => {
    if (!pending) return
    const timer = setTimeout(() => { setPending(false); setTurn(n => n + 1) }, FOLLOW_MS)
    return () => { clearTimeout(timer) }
  }, [pending])
  const stats = useRead(async () => await api<Stats>('GET', withQuery(gamePath(game.game_id, '/stats'), { minutes: 60, days: 30 })), [game.game_id, turn])
  const spread = useRead(async () => await api<Spread>('GET', withQuery(gamePath(game.game_id, '/stats/scores'), { buckets: 12 })), [game.game_id, turn])
  const charts = useMemo(() => {
    const data = stats.data
    if (data === undefined) return null
    const submissions = data.minutes.reduce((sum, minute) => sum + minute.submissions, 0)
    const players = data.days.map(day => day.active_players)
    const hours = data.days.map(day => Math.round(day.playtime_seconds / 36) / 100)
    return {
      minutes: { labels: data.minutes.map(minute => shortTime(minute.at)), values: data.minutes.map(minute => minute.submissions), summary: `${submissions} in the last hour, at most ${Math.max(...data.minutes.map(minute => minute.submissions))} in one minute.` },
      players: { labels: data.days.map(day => shortDay(day.day)), values: players, summary: `${players.at(-1) ?? 0} today; at most ${Math.max(...players)} in one day of the last 30.` },
      playtime: { labels: data.days.map(day => shortDay(day.day)), values: hours, summary: `${formatSeconds(data.days.at(-1)?.playtime_seconds ?? 0)} today; ${formatSeconds(data.days.reduce((sum, day) => sum + day.playtime_seconds, 0))} over 30 days.` },
      ratings: { labels: data.ratings.items.map(item => `${plain(item.stars / 2)}★`), values: data.ratings.items.map(item => item.count), summary: data.ratings.count === 0 ? 'Nobody has rated the game yet.' : `${counted(data.ratings.count, 'rating')}, ${(data.ratings.avg / 2).toFixed(2)} stars on average.` },
      ratingDays: ratingDays(data)
    }
  }, [stats.data])
  const scores = useMemo(() => {
    const data = spread.data
    if (data === undefined) return null
    return {
      labels: data.items.map(item => item.from === item.to ? shownScore(item.from, game) : `${shownScore(item.from, game)}–${shownScore(item.to, game)}`),
      values: data.items.map(item => item.count),
      summary: data.total === 0 ? 'The board is empty.' : `${counted(data.total, 'player')}, scores from ${shownScore(data.min, game)} to ${shownScore(data.max, game)}.`
    }
  }, [spread.data])

  return (
    <>
      <dl class='figures'>
        <div><dt>Players on the board</dt><dd>{game.players}</dd></div>
        <div><dt>Entries (season {game.season})</dt><dd>{game.entries}</dd></div>
        <div><dt>Rating, weighted by play</dt><dd id='figure-weighted'>{stats.data?.ratings.weighted == null ? '—' : `${(stats.data.ratings.weighted / 2).toFixed(2)} ★`}</dd><dd class='limit'>{game.rating_count === 0 ? 'no rating yet' : `average ${(game.rating_avg / 2).toFixed(2)} ★`}</dd></div>
        <div><dt>Play time</dt><dd>{formatSeconds(game.playtime_seconds)}</dd></div>
      </dl>
      <LiveTop game={game} onChange={boardChanged} />
      <Problem text={stats.problem ?? spread.problem} />
      <div class='charts'>
        {charts !== null && (
          <>
            <ChartBox id='chart-submissions' title='Submissions per minute (last hour)' kind='bar' series={charts.minutes} summary={charts.minutes.summary} />
            <ChartBox id='chart-players' title='Active players per day (UTC)' kind='line' series={charts.players} summary={charts.players.summary} color='#2b7a4b' />
            <ChartBox id='chart-playtime' title='Play time per day (hours, UTC)' kind='bar' series={charts.playtime} summary={charts.playtime.summary} unit=' h' color='#8a4fbf' />
            <ChartBox id='chart-ratings' title='Ratings' kind='bar' series={charts.ratings} summary={charts.ratings.summary} color='#b8621b' />
            <ChartBox id='chart-rating-days' title='Rating per day: weighted by play, and the average (stars)' kind='line' series={charts.ratingDays.weighted} second={charts.ratingDays.average} summary={charts.ratingDays.summary} color='#b8621b' />
          </>
        )}
        {scores !== null && <ChartBox id='chart-scores' title='Scores on the board' kind='bar' series={scores} summary={scores.summary} color='#1f7a8c' />}
      </div>
    </>
  )
}

/** The top 10 of the all-time board, pushed by the service as it changes. */
function LiveTop ({ game, onChange }: { game: GameWithStats, onChange: () => void }) {
  const [top, setTop] = useState<Top | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  useEffect(() => {
    let frames = 0
    return followLive(withQuery(gamePath(game.game_id, '/live'), { limit: 10 }), next => {
      setTop(next)
      if (frames++ > 0) onChange()
    }, setProblem)
  }, [game.game_id])
  return (
    <section class='card live' aria-labelledby='live-title'>
      <h2 id='live-title'>Top 10, live <span class='dot' aria-hidden='true' /></h2>
      <Problem text={problem} />
      {top !== null && top.items.length === 0 && <p>No scores yet.</p>}
      {top !== null && top.items.length > 0 && (
        // Stacked as the Board tab's is: on a phone each player is a card, its score and when on screen, not off its right edge.
        <TableBox label='Top 10'>
          <div aria-live='polite'>
            <StackedTable id='live-top'>
              <thead><tr><th scope='col' class='number'>Rank</th><th scope='col'>Player</th><th scope='col' class='number'>Score</th><th scope='col'>When</th></tr></thead>
              <tbody>
                {top.items.map(item => (
                  <tr key={item.player_name}>
                    <td class='number' data-label='Rank'>{item.rank}</td>
                    <th scope='row'>{item.player_name}</th>
                    <td class='number' data-label='Score'>{shownScore(item.score, game)}</td>
                    <td data-label='When'>{formatTime(item.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </StackedTable>
          </div>
        </TableBox>
      )}
      {top !== null && <p class='muted small'>{counted(top.total, 'player')} on the board.</p>}
    </section>
  )
}
