import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Field, More, Notice, Problem, StackedTable, TableBox, WriteButton, formatSeconds, usePaged, useWrite } from '../ui.js'
import type { GameWithFigures as Game } from '../../../src/routes/admin/records.js'

/** Every game, with its figures; create one; approve or withdraw in one click. */
export function GamesPage () {
  const [prefix, setPrefix] = useState('')
  const list = usePaged<Game>(cursor => withQuery('/admin/games', { prefix, limit: 50, cursor }), [prefix])
  const write = useWrite()
  const games = list.items

  async function setApproved (game: Game, approved: boolean): Promise<void> {
    if (await write.run(async () => await api('PATCH', gamePath(game.game_id), { approved }), `${game.game_id} is ${approved ? 'approved' : 'no longer approved'}.`)) list.reload()
  }

  return (
    <>
      <h1>Games</h1>
      <CreateGame onCreated={list.reload} />
      <section aria-labelledby='all-games'>
        <div class='section-head'>
          <h2 id='all-games'>All games</h2>
          <label class='inline' for='game-filter'>Game id begins with</label>
          <input id='game-filter' type='search' value={prefix} pattern='[A-Za-z0-9_\-]*' onChange={event => { setPrefix(event.currentTarget.value.trim()) }} />
        </div>
        <Problem text={list.problem ?? write.problem} />
        <Notice text={write.notice} />
        {games.length === 0 && !list.loading && list.problem === null && <p>No games yet{prefix === '' ? '' : ' with that prefix'}.</p>}
        {games.length > 0 && (
          <TableBox label='Games'>
            {/* Stacked: on a phone each game is a card with its button under its name, not a row wider than the screen. */}
            <StackedTable id='games-table'>
              <thead><tr><th scope='col'>Game</th><th scope='col'>Approved</th><th scope='col' class='number'>Players</th><th scope='col' class='number'>Rating</th><th scope='col' class='number'>Play time</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
              <tbody>
                {games.map(game => (
                  <tr key={game.game_id}>
                    <th scope='row'><a href={`#/games/${encodeURIComponent(game.game_id)}`}>{game.game_id}</a>{game.name !== game.game_id && <div class='muted'>{game.name}</div>}</th>
                    <td data-label='Approved'>{game.approved ? <span class='badge ok'>approved</span> : <span class='badge waiting'>waiting</span>}</td>
                    <td class='number' data-label='Players'>{game.players}</td>
                    <td class='number' data-label='Rating'>{game.rating_count === 0 ? '—' : `${(game.rating_avg / 2).toFixed(1)} ★ (${game.rating_count})`}</td>
                    <td class='number' data-label='Play time'>{formatSeconds(game.playtime_seconds)}</td>
                    <td class='row-actions'>
                      <WriteButton kind={game.approved ? 'secondary' : 'primary'} busy={write.busy} onClick={() => { void setApproved(game, !game.approved) }} label={`${game.approved ? 'Withdraw approval of' : 'Approve'} ${game.game_id}`}>
                        {game.approved ? 'Withdraw' : 'Approve'}
                      </WriteButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </StackedTable>
          </TableBox>
        )}
        <More paged={list} />
      </section>
    </>
  )
}

function CreateGame ({ onCreated }: { onCreated: () => void }) {
  const [gameId, setGameId] = useState('')
  const [name, setName] = useState('')
  const [approved, setApproved] = useState(false)
  const write = useWrite()
  async function create (event: Event): Promise<void> {
    event.preventDefault()
    const body = { game_id: gameId.trim(), approved, ...(name.trim() === '' ? {} : { name: name.trim() }) }
    if (await write.run(async () => await api('POST', '/admin/games', body), `Game ${body.game_id} created. Open it to issue an API key.`)) {
      setGameId('')
      setName('')
      onCreated()
    }
  }
  return (
    <details class='card'>
      <summary>Create a game</summary>
      <form onSubmit={create} class='form-grid'>
        <Field id='new-game-id' label='Game id' hint='1 to 64 characters: letters, digits, _ and -. It cannot change later.'>
          <input id='new-game-id' required maxLength={64} pattern='[A-Za-z0-9_\-]+' value={gameId} onInput={event => { setGameId(event.currentTarget.value) }} aria-describedby='new-game-id-hint' />
        </Field>
        <Field id='new-game-name' label='Name (optional)'>
          <input id='new-game-name' maxLength={200} value={name} onInput={event => { setName(event.currentTarget.value) }} />
        </Field>
        <div class='field check'>
          <input id='new-game-approved' type='checkbox' checked={approved} onChange={event => { setApproved(event.currentTarget.checked) }} />
          <label for='new-game-approved'>Approved: scores count from the start</label>
        </div>
        <div class='actions'><WriteButton type='submit' busy={write.busy}>Create game</WriteButton></div>
        <Problem text={write.problem} />
        <Notice text={write.notice} />
      </form>
    </details>
  )
}
