import { useState } from 'preact/hooks'
import { api, gamePath } from '../api.js'
import { Confirm, Field, Notice, Problem, StackedTable, TableBox, When, WriteButton, useOperator, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { NamedBoard } from '../../../src/rules/boards.js'
import { MAX_GAMEJOLT_ID } from '../../../src/rules/gamejolt-ids.js'
import { ScoreFormatFields } from './settings.js'

const PERIODS = ['daily', 'weekly', 'monthly'] as const
const OPERATORS: Array<[string, string]> = [['best', 'Best score kept'], ['latest', 'Last score kept'], ['sum', 'Scores added up (a running total)']]
/** The settings an empty field clears (null: none). */
const NUMBERS = ['score_min', 'score_max', 'review_above', 'review_below', 'review_factor'] as const
type Form = Record<string, string | string[]>

const emptyForm = (): Form => ({ board_id: '', name: '', gamejolt_id: '', current_gamejolt_id: '', order: 'desc', operator: 'best', periods: [], score_format: 'integer', score_decimals: '0', score_unit: '', ...Object.fromEntries(NUMBERS.map(name => [name, ''])) })
function formOf (board: NamedBoard): Form {
  return { board_id: board.board_id, name: board.name, gamejolt_id: '', current_gamejolt_id: String(board.gamejolt_id), order: board.order, operator: board.operator, periods: board.periods, score_format: board.score_format, score_decimals: String(board.score_decimals), score_unit: board.score_unit, ...Object.fromEntries(NUMBERS.map(name => [name, board[name] === null ? '' : String(board[name])])) }
}
/** The form as the API takes it: numbers as numbers, an empty number as null (no bound, no rule); a Game Jolt table id only when one is typed (else it stays, or is made). */
function bodyOf (form: Form, { withId }: { withId: boolean }): Record<string, unknown> {
  const body: Record<string, unknown> = { name: (form.name as string).trim() === '' ? form.board_id : (form.name as string).trim(), order: form.order, operator: form.operator, periods: form.periods, score_format: form.score_format, score_decimals: Number(form.score_decimals), score_unit: (form.score_unit as string).trim() }
  if (withId) body.board_id = (form.board_id as string).trim()
  if ((form.gamejolt_id as string).trim() !== '') body.gamejolt_id = Number(form.gamejolt_id)
  for (const name of NUMBERS) body[name] = (form[name] as string).trim() === '' ? null : Number(form[name])
  return body
}
const describe = (board: NamedBoard): string => `${board.order === 'asc' ? 'lower is better' : 'higher is better'}, ${OPERATORS.find(([operator]) => operator === board.operator)?.[1].toLowerCase() ?? board.operator}`

/** The game's named boards (docs/interface.md#named-boards): make one, change, archive or delete it. */
export function BoardsTab ({ game }: { game: GameWithStats }) {
  const list = useRead(async () => await api<{ items: NamedBoard[] }>('GET', gamePath(game.game_id, '/boards')), [game.game_id])
  const write = useWrite()
  const viewer = useOperator().role === 'viewer'
  const [form, setForm] = useState<Form>(emptyForm)
  const [editing, setEditing] = useState<string | null>(null)
  const [removing, setRemoving] = useState<NamedBoard | null>(null)
  const set = (name: string, value: string | string[]): void => { setForm({ ...form, [name]: value }) }
  const input = (name: string) => ({ id: `board-${name}`, name, value: form[name] as string, disabled: viewer, onInput: (event: Event) => { set(name, (event.currentTarget as HTMLInputElement).value) } })

  async function save (event: Event): Promise<void> {
    event.preventDefault()
    const done = editing === null
      ? await write.run(async () => await api('POST', gamePath(game.game_id, '/boards'), bodyOf(form, { withId: true })), `The board ${String(form.board_id)} is made: games send its scores with board=${String(form.board_id)}.`)
      : await write.run(async () => await api('PATCH', gamePath(game.game_id, `/boards/${editing}`), bodyOf(form, { withId: false })), `The board ${editing} is saved.`)
    if (done) {
      setForm(emptyForm())
      setEditing(null)
      list.reload()
    }
  }
  async function archive (board: NamedBoard, archived: boolean): Promise<void> {
    if (await write.run(async () => await api('PATCH', gamePath(game.game_id, `/boards/${board.board_id}`), { archived }), archived ? `${board.board_id} is archived: read as before, no new scores.` : `${board.board_id} takes scores again.`)) list.reload()
  }
  async function remove (board: NamedBoard): Promise<void> {
    if (await write.run(async () => await api('DELETE', gamePath(game.game_id, `/boards/${board.board_id}`)), `The board ${board.board_id} is deleted, with every entry of it.`)) list.reload()
    setRemoving(null)
  }
  const boards = list.data?.items ?? []

  return (
    <>
      <details class='card' open={editing !== null ? true : undefined}>
        <summary>{editing === null ? 'Make a board' : `Change ${editing}`}</summary>
        <form class='form-grid' onSubmit={save}>
          <Field id='board-board_id' label='Board id' hint='1 to 32 of a-z 0-9 _ -: what games send as board=. It cannot change.'>
            <input {...input('board_id')} required pattern='[a-z0-9][a-z0-9_\-]{0,31}' maxLength={32} disabled={viewer || editing !== null} aria-describedby='board-board_id-hint' />
          </Field>
          <Field id='board-name' label='Name players see'><input {...input('name')} maxLength={64} placeholder={form.board_id as string} /></Field>
          <Field id='board-order' label='Which scores are better' hint='Order and kind change only while the board is empty.'>
            <select id='board-order' value={form.order as string} disabled={viewer} onChange={event => { set('order', event.currentTarget.value) }} aria-describedby='board-order-hint'>
              <option value='desc'>Higher (points)</option>
              <option value='asc'>Lower (times, strokes)</option>
            </select>
          </Field>
          <Field id='board-operator' label='What a score does'>
            <select id='board-operator' value={form.operator as string} disabled={viewer} onChange={event => { set('operator', event.currentTarget.value) }}>
              {OPERATORS.map(([operator, label]) => <option key={operator} value={operator}>{label}</option>)}
            </select>
          </Field>
          <fieldset class='field'>
            <legend>Calendar boards</legend>
            <div class='checks'>
              {PERIODS.map(kind => (
                <span class='check' key={kind}>
                  <input id={`board-period-${kind}`} type='checkbox' disabled={viewer} checked={(form.periods as string[]).includes(kind)} onChange={event => { set('periods', PERIODS.filter(one => one === kind ? event.currentTarget.checked : (form.periods as string[]).includes(one))) }} />
                  <label for={`board-period-${kind}`}>{kind}</label>
                </span>
              ))}
            </div>
          </fieldset>
          <ScoreFormatFields form={form} set={values => { setForm({ ...form, ...values }) }} disabled={viewer} prefix='board' />
          <Field id='board-score_min' label='Lowest score taken'><input {...input('score_min')} inputMode='numeric' placeholder='none' /></Field>
          <Field id='board-score_max' label='Highest score taken'><input {...input('score_max')} inputMode='numeric' placeholder='none' /></Field>
          <Field id='board-review_above' label='Hold for review above'><input {...input('review_above')} inputMode='numeric' placeholder='no rule' /></Field>
          <Field id='board-review_below' label='Hold for review below'><input {...input('review_below')} inputMode='numeric' placeholder='no rule' /></Field>
          <Field id='board-review_factor' label='Hold when this many times the best'><input {...input('review_factor')} inputMode='decimal' placeholder='no rule' /></Field>
          <Field id='board-gamejolt_id' label='Game Jolt table id' hint={`The id a moved game's builds carry, 1 to ${MAX_GAMEJOLT_ID}. Empty: ${editing === null ? "one made of the board's id" : 'kept as it is'}.`}>
            <input {...input('gamejolt_id')} type='number' min={1} max={MAX_GAMEJOLT_ID} step={1} inputMode='numeric' placeholder={form.current_gamejolt_id as string} aria-describedby='board-gamejolt_id-hint' />
          </Field>
          <div class='actions wide'>
            <WriteButton type='submit' busy={write.busy}>{editing === null ? 'Make board' : 'Save board'}</WriteButton>
            {editing !== null && <button type='button' class='button secondary' onClick={() => { setEditing(null); setForm(emptyForm()) }}>Cancel</button>}
          </div>
        </form>
      </details>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      <p class='muted'>The game's own board (its settings are the game's) is always there; up to 1000 boards more, one per level, mode or statistic. Time zone, seasons, caps and hidden players are the game's.</p>
      {list.data !== undefined && boards.length === 0 && <p>No boards besides the game's own.</p>}
      {boards.length > 0 && (
        // Stacked: on a phone each board is a card, its buttons under its cells rather than pinned over them.
        <TableBox label='Named boards'>
          <StackedTable id='boards-table'>
            <thead><tr><th scope='col'>Board</th><th scope='col'>Kind</th><th scope='col'>Calendar</th><th scope='col'>Game Jolt table</th><th scope='col'>Made</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {boards.map(board => (
                <tr key={board.board_id} class={board.archived ? 'hidden-entry' : undefined}>
                  <th scope='row'><code>{board.board_id}</code> {board.name !== board.board_id && <span>{board.name}</span>} {board.archived && <span class='badge waiting'>archived</span>}</th>
                  <td data-label='Kind'>{describe(board)}</td>
                  <td data-label='Calendar'>{board.periods.join(', ') || 'none'}</td>
                  <td data-label='Game Jolt table'><code>{board.gamejolt_id}</code></td>
                  <td data-label='Made'><When iso={board.created_at} /></td>
                  <td class='row-actions'>
                    <a class='button secondary' href={`#/games/${encodeURIComponent(game.game_id)}/board/${board.board_id}`}>Entries</a>
                    <WriteButton kind='secondary' busy={write.busy} onClick={() => { setEditing(board.board_id); setForm(formOf(board)) }} label={`Change ${board.board_id}`}>Change</WriteButton>
                    <WriteButton kind='secondary' busy={write.busy} onClick={() => { void archive(board, !board.archived) }} label={`${board.archived ? 'Unarchive' : 'Archive'} ${board.board_id}`}>{board.archived ? 'Unarchive' : 'Archive'}</WriteButton>
                    <WriteButton kind='danger' busy={write.busy} onClick={() => { setRemoving(board) }} label={`Delete ${board.board_id}`}>Delete</WriteButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      <Confirm open={removing !== null} title={`Delete the board ${removing?.board_id ?? ''}?`} confirm='Delete the board' busy={write.busy} onCancel={() => { setRemoving(null) }} onConfirm={() => { void remove(removing!) }}>
        <p>Every entry of it goes, in every season and period; its held scores can only be rejected. This cannot be undone: archive it instead to keep it readable.</p>
      </Confirm>
    </>
  )
}
