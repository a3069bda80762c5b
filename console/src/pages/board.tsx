import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Confirm, More, Notice, Problem, StackedTable, TableBox, WriteButton, counted, formatTime, shownScore, usePaged, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { ListedEntry as Entry } from '../../../src/routes/admin/records.js'
import type { BoardOperator, NamedBoard } from '../../../src/rules/boards.js'
import { DEFAULT_DISPLAY } from '../../../src/rules/score-format.js'
import type { AroundResult as Around, SeasonsResult as Seasons } from '../../../sdk/answers.js'

/** Which board: the game's own or a named one (board), its all-time board (this season or an archived one) or a calendar period. */
interface Choice { board?: string, period?: string, period_id?: string, season_id?: number }

const SCORE_HEADINGS: Record<BoardOperator, string> = { best: 'Best', latest: 'Latest', sum: 'Total' }

/** A board of the game (its own, or the named board `boardId`): page by page or by name, around a player; hide, show, delete. */
export function BoardTab ({ game, boardId }: { game: GameWithStats, boardId?: string }) {
  const [choice, setChoice] = useState<Choice>(boardId === undefined ? {} : { board: boardId })
  const named = useRead(async () => await api<{ items: NamedBoard[] }>('GET', gamePath(game.game_id, '/boards')), [game.game_id])
  const board = named.data?.items.find(item => item.board_id === choice.board)
  // Scores as the board shows them (its display format); a named board's once its settings are read, whole numbers until then.
  const shown = choice.board === undefined ? game : board ?? DEFAULT_DISPLAY
  // What an entry's score is on this board: a best, the latest score, or a running total.
  const scoreHeading = SCORE_HEADINGS[board?.operator ?? 'best']
  const [prefix, setPrefix] = useState('')
  const [aroundName, setAroundName] = useState('')
  const [around, setAround] = useState<Around | null>(null)
  const [deleting, setDeleting] = useState<string | null>(null)
  const seasons = useRead(async () => await api<Seasons>('GET', gamePath(game.game_id, '/seasons')), [game.game_id])
  const write = useWrite()
  // The first page says how many players are visible (not a name search's).
  const page = usePaged<Entry, { total?: number }>(cursor => withQuery(gamePath(game.game_id, '/players'), { ...choice, prefix, limit: 50, cursor }), [game.game_id, JSON.stringify(choice), prefix])
  const entries = page.items
  const playerPath = (name: string): string => withQuery(gamePath(game.game_id, '/player'), { player_name: name })
  async function setHidden (entry: Entry, hidden: boolean): Promise<void> {
    // A hide reaches every board of the game; the answer is the entry on the board shown.
    if (await write.run(async () => await api('PATCH', playerPath(entry.player_name), { hidden, ...(choice.board === undefined ? {} : { board: choice.board }) }), `${entry.player_name} is ${hidden ? 'hidden' : 'shown again'} on every board of the game.`)) page.reload()
  }
  async function remove (name: string): Promise<void> {
    if (await write.run(async () => await api('DELETE', playerPath(name)), `${name}'s entries are deleted.`)) page.reload()
    setDeleting(null)
  }
  async function findAround (event: Event): Promise<void> {
    event.preventDefault()
    await write.run(async () => { setAround(await api<Around>('GET', withQuery(gamePath(game.game_id, '/around'), { ...choice, player_name: aroundName.trim(), before: 5, after: 5 }))) }, '')
  }

  const boardValue = choice.period !== undefined ? `period:${choice.period}` : choice.season_id !== undefined ? `season:${choice.season_id}` : 'all'
  const onBoard = choice.board === undefined ? {} : { board: choice.board }
  function chooseBoard (value: string): void {
    const [kind, id] = value.split(':')
    setAround(null)
    if (kind === 'period') setChoice({ ...onBoard, period: id })
    else if (kind === 'season') setChoice({ ...onBoard, season_id: Number(id) })
    else setChoice(onBoard)
  }
  function chooseNamed (value: string): void {
    setAround(null)
    setChoice(value === '' ? {} : { board: value })
    // The hash names the board, so the page can be linked to and reloaded.
    history.replaceState(null, '', `#/games/${encodeURIComponent(game.game_id)}/board${value === '' ? '' : `/${value}`}`)
  }
  // A named board keeps its own periods, and the game's seasons from the one it was made in.
  const periods = board?.periods ?? game.periods
  const archives = (seasons.data?.items ?? []).filter(season => season.ended_at !== null && season.season_id >= (board?.first_season ?? 1)).reverse()

  return (
    <>
      <form class='toolbar' onSubmit={event => { event.preventDefault() }}>
        {(named.data?.items.length ?? 0) > 0 && (
          <div class='field'>
            <label for='named-board'>Which board</label>
            <select id='named-board' value={choice.board ?? ''} onChange={event => { chooseNamed(event.currentTarget.value) }}>
              <option value=''>The game's own</option>
              {named.data?.items.map(item => <option key={item.board_id} value={item.board_id}>{item.name === item.board_id ? item.board_id : `${item.name} (${item.board_id})`}{item.archived ? ', archived' : ''}</option>)}
            </select>
          </div>
        )}
        <div class='field'>
          <label for='board-choice'>Board</label>
          <select id='board-choice' value={boardValue} onChange={event => { chooseBoard(event.currentTarget.value) }}>
            <option value='all'>All-time (season {game.season})</option>
            {periods.map(kind => <option key={kind} value={`period:${kind}`}>{kind[0]!.toUpperCase() + kind.slice(1)} (current)</option>)}
            {archives.map(season => <option key={season.season_id} value={`season:${season.season_id}`}>Season {season.season_id} (archive, ended {formatTime(season.ended_at)})</option>)}
          </select>
        </div>
        {choice.period !== undefined && (
          <div class='field'>
            <label for='period-id'>Past period</label>
            <input id='period-id' placeholder={choice.period === 'daily' ? '2026-11-23' : choice.period === 'weekly' ? '2026-W48' : '2026-11'} value={choice.period_id ?? ''} onChange={event => { const value = event.currentTarget.value.trim(); setChoice({ ...onBoard, period: choice.period, ...(value === '' ? {} : { period_id: value }) }) }} aria-describedby='period-id-hint' />
            <small id='period-id-hint' class='hint'>Empty for the current one.</small>
          </div>
        )}
        <div class='field'>
          <label for='board-search'>Player name begins with</label>
          <input id='board-search' type='search' maxLength={30} value={prefix} onChange={event => { setPrefix(event.currentTarget.value.trim()) }} />
        </div>
      </form>
      <form class='toolbar' onSubmit={findAround}>
        <div class='field'>
          <label for='around-name'>Around a player</label>
          <input id='around-name' maxLength={30} value={aroundName} onInput={event => { setAroundName(event.currentTarget.value) }} required />
        </div>
        <div class='actions'><button type='submit' class='button secondary'>Show around</button></div>
      </form>
      <Problem text={page.problem ?? named.problem ?? write.problem} />
      <Notice text={write.notice} />
      {around !== null && (
        <section class='card' aria-labelledby='around-title'>
          <h2 id='around-title'>Around {around.player.player_name}</h2>
          {around.player.rank === null
            ? <p>{around.player.player_name} has no visible entry on this board.</p>
            : (
              <TableBox label={`Around ${around.player.player_name}`}>
                <table>
                  <thead><tr><th scope='col' class='number'>Rank</th><th scope='col'>Player</th><th scope='col' class='number'>Score</th></tr></thead>
                  <tbody>{around.items.map(item => <tr key={item.player_name} class={item.player_name === around.player.player_name ? 'mark' : undefined}><td class='number'>{item.rank}</td><td>{item.player_name}</td><td class='number'>{shownScore(item.score, shown)}</td></tr>)}</tbody>
                </table>
              </TableBox>)}
          <button type='button' class='button secondary' onClick={() => { setAround(null) }}>Close</button>
        </section>
      )}
      {page.first?.total !== undefined && <p class='muted'>{counted(page.first.total, 'visible player')}{prefix === '' ? '' : `; showing names that begin with “${prefix}”`}.</p>}
      {entries.length === 0 && !page.loading && page.problem === null && <p>No entries{prefix === '' ? ' on this board yet' : ' with that name'}.</p>}
      {entries.length > 0 && (
        // Stacked: on a phone each entry is a card, its buttons under its cells rather than pinned over them.
        <TableBox label='Board entries'>
          <StackedTable id='board-table'>
            <thead><tr><th scope='col' class='number'>Rank</th><th scope='col'>Player</th><th scope='col' class='number'>{scoreHeading}</th><th scope='col'>Reached</th><th scope='col'>Meta</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {entries.map(entry => (
                <tr key={entry.player_name} class={entry.rank === null ? 'hidden-entry' : undefined}>
                  <td class='number' data-label='Rank'>{entry.rank ?? <span class='badge waiting' title={entry.hidden_user ? 'Hidden as a user, on every game' : 'Hidden on this game'}>hidden</span>}</td>
                  <th scope='row'>{entry.player_name}</th>
                  <td class='number' data-label={scoreHeading}>{shownScore(entry.best_score, shown)}</td>
                  <td data-label='Reached'>{formatTime(entry.created_at)}</td>
                  <td class='meta' data-label='Meta'>{entry.meta === null ? <span class='muted'>—</span> : <code>{entry.meta}</code>}</td>
                  <td class='row-actions'>
                    {entry.hidden
                      ? <WriteButton kind='secondary' busy={write.busy} onClick={() => { void setHidden(entry, false) }} label={`Show ${entry.player_name}`}>Show</WriteButton>
                      : <WriteButton kind='secondary' busy={write.busy} onClick={() => { void setHidden(entry, true) }} label={`Hide ${entry.player_name}`}>Hide</WriteButton>}
                    <WriteButton kind='danger' busy={write.busy} onClick={() => { setDeleting(entry.player_name) }} label={`Delete ${entry.player_name}`}>Delete</WriteButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      <More paged={page} />
      <Confirm open={deleting !== null} title={`Delete ${deleting ?? ''}'s entry?`} confirm='Delete the entry' busy={write.busy} onCancel={() => { setDeleting(null) }} onConfirm={() => { void remove(deleting!) }}>
        <p>The entry leaves every board of this game, periods and archives included. A submit signed before now cannot bring it back. This cannot be undone.</p>
      </Confirm>
    </>
  )
}
