import { useMemo, useState } from 'preact/hooks'
import { api, apiFile, gamePath, saveFile, withQuery } from '../api.js'
import { ChartBox } from '../charts.js'
import { Confirm, Field, Notice, Problem, StackedTable, TableBox, WriteButton, counted, editableScore, formatTime, shownScore, typedScore, useOperator, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import { DIFFICULTIES, type Achievement } from '../../../src/rules/achievements.js'
import { MAX_GAMEJOLT_ID } from '../../../src/rules/gamejolt-ids.js'
import type { NamedBoard } from '../../../src/rules/boards.js'
import type { DisplaySettings } from '../../../src/rules/score-format.js'

type Listed = Achievement & { unlocked: number, rarity: number }
type Form = Record<string, string | boolean>
/** What a threshold needs of its board: which way is better, and how its scores are shown. */
type Board = DisplaySettings & { order: 'asc' | 'desc' }
/** The rule that means "as good as the threshold or better": on a board where lower is better (times), at most. */
const betterKind = (board: Board | undefined): string => board?.order === 'asc' ? 'at_most' : 'at_least'

const emptyForm = (): Form => ({ achievement_id: '', name: '', description: '', points: '0', hidden: false, board: '', kind: 'at_least', value: '', min_run_seconds: '0', difficulty: 'bronze', gamejolt_id: '', current_gamejolt_id: '' })
function formOf (achievement: Achievement, board: Board | undefined): Form {
  const rule = achievement.rule
  return {
    achievement_id: achievement.achievement_id,
    name: achievement.name,
    description: achievement.description,
    points: String(achievement.points),
    hidden: achievement.hidden,
    min_run_seconds: String(achievement.min_run_seconds),
    difficulty: achievement.difficulty,
    gamejolt_id: '',
    current_gamejolt_id: String(achievement.gamejolt_id),
    board: rule?.board ?? '',
    kind: rule?.at_most !== null && rule?.at_most !== undefined ? 'at_most' : 'at_least',
    value: rule === null ? '' : board === undefined ? String(rule.at_least ?? rule.at_most) : editableScore(rule.at_least ?? rule.at_most ?? 0, board)
  }
}
/** The form as the API takes it: no board means only the game unlocks it (rule null). */
function bodyOf (form: Form, board: Board | undefined, { withId }: { withId: boolean }): Record<string, unknown> {
  const name = (form.name as string).trim()
  const body: Record<string, unknown> = {
    name: name === '' ? form.achievement_id : name,
    description: (form.description as string).trim(),
    points: Number(form.points),
    hidden: form.hidden,
    min_run_seconds: Number(form.min_run_seconds === '' ? 0 : form.min_run_seconds),
    difficulty: form.difficulty,
    rule: form.board === '' ? null : { board: form.board, [form.kind as string]: board === undefined ? Number(form.value) : typedScore(form.value as string, board) }
  }
  if (withId) body.achievement_id = (form.achievement_id as string).trim()
  // A trophy id only when one is typed: else it stays as it is (or is made of the id).
  if ((form.gamejolt_id as string).trim() !== '') body.gamejolt_id = Number(form.gamejolt_id)
  return body
}
/** The rule in words, its threshold shown as its board shows scores (a time as 1:23.456). */
function ruleText (achievement: Achievement, board: Board | undefined): string {
  const rule = achievement.rule
  if (rule === null) return 'unlocked by the game'
  const name = rule.board === 'default' ? "the game's own board" : rule.board
  const shown = (score: number | null): string => score === null ? '' : board === undefined ? String(score) : shownScore(score, board)
  return rule.at_least !== null ? `${name} reaches ${shown(rule.at_least)}` : `${name} at most ${shown(rule.at_most)}`
}

/** One line of the unlocks' file (GET …/unlocks: docs/interface.md#achievements-operators). */
interface Unlock { player_name: string, achievement_id: string, unlocked_at: string }

/** Who unlocked what: one player's unlocks shown, every unlock downloaded as CSV. */
function UnlocksCard ({ game, achievements }: { game: GameWithStats, achievements: Listed[] }) {
  const [player, setPlayer] = useState('')
  const [shown, setShown] = useState<{ player: string, items: Unlock[] } | null>(null)
  const read = useWrite()
  const unlocksPath = (query: Record<string, string>): string => withQuery(gamePath(game.game_id, '/unlocks'), query)
  async function look (event: Event): Promise<void> {
    event.preventDefault()
    const name = player.trim()
    await read.run(async () => {
      const text = await (await apiFile(unlocksPath({ player_name: name }))).blob.text()
      setShown({ player: name, items: text.split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Unlock) })
    }, '')
  }
  const nameOf = (id: string): string => achievements.find(achievement => achievement.achievement_id === id)?.name ?? id
  return (
    <section class='card' aria-labelledby='unlocks-title'>
      <h2 id='unlocks-title'>Players' unlocks</h2>
      <form class='form-grid' onSubmit={look}>
        <Field id='unlocks-player' label='Player name'>
          <input id='unlocks-player' name='player_name' value={player} maxLength={64} required onInput={event => { setPlayer(event.currentTarget.value) }} />
        </Field>
        <div class='actions wide'>
          <button type='submit' class='button primary' disabled={read.busy}>Show their unlocks</button>
          <button type='button' class='button secondary' disabled={read.busy} onClick={() => { void read.run(async () => { saveFile(await apiFile(unlocksPath({ format: 'csv' }))) }, 'The unlocks are downloaded.') }}>Download every unlock (CSV)</button>
        </div>
      </form>
      <Problem text={read.problem} />
      {read.notice !== '' && <Notice text={read.notice} />}
      {shown !== null && shown.items.length === 0 && <p id='unlocks-none'>{shown.player} has unlocked none of the achievements.</p>}
      {shown !== null && shown.items.length > 0 && (
        <TableBox label={`Unlocks of ${shown.player}`}>
          <table id='unlocks-table'>
            <caption>{shown.player}: {shown.items.length} unlocked</caption>
            <thead><tr><th scope='col'>Achievement</th><th scope='col'>Unlocked</th></tr></thead>
            <tbody>
              {shown.items.map(item => <tr key={item.achievement_id}><th scope='row'>{nameOf(item.achievement_id)} <code>{item.achievement_id}</code></th><td>{formatTime(item.unlocked_at)}</td></tr>)}
            </tbody>
          </table>
        </TableBox>
      )}
    </section>
  )
}

/** The game's achievements (docs/interface.md#achievements): make, change, give an icon, delete; how rare each one is; who unlocked what. */
export function AchievementsTab ({ game }: { game: GameWithStats }) {
  const list = useRead(async () => await api<{ items: Listed[], players: number }>('GET', gamePath(game.game_id, '/achievements')), [game.game_id])
  const boards = useRead(async () => await api<{ items: NamedBoard[] }>('GET', gamePath(game.game_id, '/boards')), [game.game_id])
  const write = useWrite()
  const viewer = useOperator().role === 'viewer'
  const [form, setForm] = useState<Form>(emptyForm)
  const [editing, setEditing] = useState<string | null>(null)
  const [removing, setRemoving] = useState<Listed | null>(null)
  const set = (name: string, value: string | boolean): void => { setForm({ ...form, [name]: value }) }
  const input = (name: string) => ({ id: `achievement-${name}`, name, value: form[name] as string, disabled: viewer, onInput: (event: Event) => { set(name, (event.currentTarget as HTMLInputElement).value) } })
  const items = list.data?.items ?? []
  const boardOf = (id: string): Board | undefined => id === 'default' ? game : boards.data?.items.find(board => board.board_id === id)
  const chosen = boardOf(form.board as string)
  const rarity = useMemo(() => ({ labels: items.map(item => item.name), values: items.map(item => item.rarity) }), [list.data])

  async function save (event: Event): Promise<void> {
    event.preventDefault()
    const done = editing === null
      ? await write.run(async () => await api('POST', gamePath(game.game_id, '/achievements'), bodyOf(form, chosen, { withId: true })), `The achievement ${String(form.achievement_id)} is made.`)
      : await write.run(async () => await api('PATCH', gamePath(game.game_id, `/achievements/${editing}`), bodyOf(form, chosen, { withId: false })), `The achievement ${editing} is saved.`)
    if (done) {
      setForm(emptyForm())
      setEditing(null)
      list.reload()
    }
  }
  async function upload (achievement: Listed, file: File | undefined): Promise<void> {
    if (file === undefined) return
    if (await write.run(async () => await api('PUT', gamePath(game.game_id, `/achievements/${achievement.achievement_id}/icon`), file), `${achievement.achievement_id} has its icon.`)) list.reload()
  }
  async function remove (achievement: Listed): Promise<void> {
    if (await write.run(async () => await api('DELETE', gamePath(game.game_id, `/achievements/${achievement.achievement_id}`)), `The achievement ${achievement.achievement_id} is deleted.`)) list.reload()
    setRemoving(null)
  }

  return (
    <>
      <details class='card' open={editing !== null ? true : undefined}>
        <summary>{editing === null ? 'Make an achievement' : `Change ${editing}`}</summary>
        <form class='form-grid' onSubmit={save}>
          <Field id='achievement-achievement_id' label='Achievement id' hint='1 to 32 of a-z 0-9 _ -: what games send to unlock it. Players of a hidden one do not see it.'>
            <input {...input('achievement_id')} required pattern='[a-z0-9][a-z0-9_\-]{0,31}' maxLength={32} disabled={viewer || editing !== null} aria-describedby='achievement-achievement_id-hint' />
          </Field>
          <Field id='achievement-name' label='Name players see'><input {...input('name')} maxLength={64} placeholder={form.achievement_id as string} /></Field>
          <Field id='achievement-description' label='Description'><input {...input('description')} maxLength={500} /></Field>
          <Field id='achievement-points' label='Points'><input {...input('points')} type='number' min={0} max={1000} required /></Field>
          {game.runs !== 'off' && (
            <Field id='achievement-min_run_seconds' label='Seconds of play it needs' hint='The verified play of the run an unlock by the game carries; 0: none asked.'>
              <input {...input('min_run_seconds')} type='number' min={0} max={86400} aria-describedby='achievement-min_run_seconds-hint' />
            </Field>
          )}
          <Field id='achievement-difficulty' label='Difficulty' hint="How hard it is to get: the trophy's material in Game Jolt's API.">
            <select id='achievement-difficulty' value={form.difficulty as string} disabled={viewer} onChange={event => { set('difficulty', event.currentTarget.value) }} aria-describedby='achievement-difficulty-hint'>
              {DIFFICULTIES.map(difficulty => <option key={difficulty} value={difficulty}>{difficulty}</option>)}
            </select>
          </Field>
          <Field id='achievement-gamejolt_id' label='Game Jolt trophy id' hint={`The id a moved game's builds carry, 1 to ${MAX_GAMEJOLT_ID}. Empty: ${editing === null ? "one made of the achievement's id" : 'kept as it is'}.`}>
            <input {...input('gamejolt_id')} type='number' min={1} max={MAX_GAMEJOLT_ID} step={1} inputMode='numeric' placeholder={form.current_gamejolt_id as string} aria-describedby='achievement-gamejolt_id-hint' />
          </Field>
          <Field id='achievement-board' label='Unlocked when a board' hint='None: only the game unlocks it.'>
            <select id='achievement-board' value={form.board as string} disabled={viewer} onChange={event => { const board = event.currentTarget.value; setForm({ ...form, board, kind: betterKind(boardOf(board)) }) }} aria-describedby='achievement-board-hint'>
              <option value=''>None</option>
              <option value='default'>The game's own board</option>
              {boards.data?.items.map(board => <option key={board.board_id} value={board.board_id}>{board.name === board.board_id ? board.board_id : `${board.name} (${board.board_id})`}</option>)}
            </select>
          </Field>
          {form.board !== '' && (
            <>
              <Field id='achievement-kind' label='Its stored score is'>
                <select id='achievement-kind' value={form.kind as string} disabled={viewer} onChange={event => { set('kind', event.currentTarget.value) }}>
                  <option value='at_least'>at least</option>
                  <option value='at_most'>at most</option>
                </select>
              </Field>
              {chosen?.score_format === 'time'
                ? (
                  <Field id='achievement-value' label='Threshold' hint='A time as the board shows it (1:23.456), or in ms.'>
                    <input {...input('value')} required pattern='-?(\d+:){0,2}\d+([.,]\d{1,3})?' aria-describedby='achievement-value-hint' />
                  </Field>
                  )
                : <Field id='achievement-value' label='Threshold'><input {...input('value')} inputMode='numeric' required /></Field>}
            </>
          )}
          <div class='field check wide'>
            <input id='achievement-hidden' type='checkbox' checked={form.hidden as boolean} disabled={viewer} onChange={event => { set('hidden', event.currentTarget.checked) }} />
            <label for='achievement-hidden'>Hidden: players see it only once they unlock it</label>
          </div>
          <div class='actions wide'>
            <WriteButton type='submit' busy={write.busy}>{editing === null ? 'Make achievement' : 'Save achievement'}</WriteButton>
            {editing !== null && <button type='button' class='button secondary' onClick={() => { setEditing(null); setForm(emptyForm()) }}>Cancel</button>}
          </div>
        </form>
      </details>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      {list.data !== undefined && items.length === 0 && <p>No achievements yet.</p>}
      {items.length > 0 && (
        <>
          <ChartBox id='rarity-chart' title={`Rarity: the share of players who have each (of ${counted(list.data?.players ?? 0, 'player')})`} kind='bar' unit='%' series={rarity} summary={items.map(item => `${item.name}: ${item.rarity}%`).join('; ')} />
          {/* Stacked: on a phone each achievement is a card, its buttons under its cells rather than pinned over them. */}
          <TableBox label='Achievements'>
            <StackedTable id='achievements-table'>
              <thead><tr><th scope='col'>Achievement</th><th scope='col' class='number'>Points</th><th scope='col'>Unlocked</th><th scope='col' class='number'>Players</th><th scope='col'>Game Jolt trophy</th><th scope='col'>Icon</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
              <tbody>
                {items.map(item => (
                  <tr key={item.achievement_id}>
                    <th scope='row'><code>{item.achievement_id}</code> {item.name !== item.achievement_id && <span>{item.name}</span>} {item.hidden && <span class='badge waiting'>hidden</span>}</th>
                    <td class='number' data-label='Points'>{item.points}</td>
                    <td data-label='Unlocked'>{ruleText(item, item.rule === null ? undefined : boardOf(item.rule.board))}</td>
                    <td class='number' data-label='Players'>{item.unlocked} ({item.rarity}%)</td>
                    <td data-label='Game Jolt trophy'><code>{item.gamejolt_id}</code> {item.difficulty}</td>
                    <td data-label='Icon'>
                      {item.icon === null && viewer && <span class='muted'>none</span>}
                      {item.icon !== null && <img class='icon' src={`/play/${encodeURIComponent(game.game_id)}/achievements/${item.achievement_id}/icon?v=${item.icon.etag}`} alt='' width={32} height={32} />}
                      {!viewer && (
                        <label class='button secondary upload'>
                          {item.icon === null ? 'Add icon' : 'New icon'}
                          <input type='file' accept='image/png,image/jpeg,image/gif,image/webp' class='visually-hidden' aria-label={`Icon for ${item.achievement_id}`} onChange={event => { void upload(item, event.currentTarget.files?.[0]) }} />
                        </label>
                      )}
                    </td>
                    <td class='row-actions'>
                      <WriteButton kind='secondary' busy={write.busy} onClick={() => { setEditing(item.achievement_id); setForm(formOf(item, item.rule === null ? undefined : boardOf(item.rule.board))) }} label={`Change ${item.achievement_id}`}>Change</WriteButton>
                      <WriteButton kind='danger' busy={write.busy} onClick={() => { setRemoving(item) }} label={`Delete ${item.achievement_id}`}>Delete</WriteButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </StackedTable>
          </TableBox>
        </>
      )}
      {items.length > 0 && <UnlocksCard game={game} achievements={items} />}
      <Confirm open={removing !== null} title={`Delete the achievement ${removing?.achievement_id ?? ''}?`} confirm='Delete the achievement' busy={write.busy} onCancel={() => { setRemoving(null) }} onConfirm={() => { void remove(removing!) }}>
        <p>Its icon and count go, and no player has it any more; one made again with the same id starts with no one. This cannot be undone.</p>
      </Confirm>
    </>
  )
}
