import { useState } from 'preact/hooks'
import { api, gamePath } from '../api.js'
import { Confirm, Field, Notice, Problem, WriteButton, formatTime, shownScore, useOperator, useWrite } from '../ui.js'
import { DEFAULT_DECIMALS, type ScoreFormatType } from '../../../sdk/format.js'
import type { GameWithStats } from '../../../src/rules/games.js'

const PERIODS = ['daily', 'weekly', 'monthly'] as const
/** The settings an empty field clears (null: none). */
const OPTIONAL_NUMBERS = ['score_min', 'score_max', 'review_above', 'review_below', 'review_factor', 'max_score_rate'] as const
type Form = Record<string, string | boolean | string[]>

function formOf (game: GameWithStats): Form {
  const form: Form = {
    name: game.name,
    developer: game.developer ?? '',
    approved: game.approved,
    order: game.order,
    periods: game.periods,
    timezone: game.timezone,
    keep_periods: String(game.keep_periods),
    max_entries: String(game.max_entries),
    max_meta_bytes: String(game.max_meta_bytes),
    notify_top: String(game.notify_top),
    guests: game.guests,
    runs: game.runs,
    min_run_seconds: String(game.min_run_seconds),
    implausible: game.implausible,
    run_ttl_s: String(game.run_ttl_s),
    submit_run: game.submit_run,
    score_format: game.score_format,
    score_decimals: String(game.score_decimals),
    score_unit: game.score_unit
  }
  for (const name of OPTIONAL_NUMBERS) form[name] = game[name] === null ? '' : String(game[name])
  return form
}

/** What changed, as the API takes it: numbers as numbers, an emptied optional number as null. */
function changesOf (before: Form, after: Form): Record<string, unknown> {
  const changes: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(after)) {
    if (JSON.stringify(value) === JSON.stringify(before[name])) continue
    if (typeof value !== 'string' || ['name', 'developer', 'order', 'timezone', 'guests', 'runs', 'implausible', 'submit_run', 'score_format', 'score_unit'].includes(name)) changes[name] = value
    else if ((OPTIONAL_NUMBERS as readonly string[]).includes(name) && value.trim() === '') changes[name] = null
    else changes[name] = Number(value)
  }
  // A type sent alone takes its own digits: the digits shown in the form go with it, whatever they were before.
  if (changes.score_format !== undefined) changes.score_decimals = Number(after.score_decimals)
  if (typeof changes.score_unit === 'string') changes.score_unit = changes.score_unit.trim()
  return changes
}

/**
 * How a board's scores are shown (docs/interface.md#score-formats): the type,
 * its digits (a new type takes its own), a unit, and an example as pages will
 * show it. Shared by the game's settings and the named boards' form.
 */
export function ScoreFormatFields ({ form, set, disabled, prefix }: { form: Record<string, unknown>, set: (values: Record<string, string>) => void, disabled: boolean, prefix: string }) {
  const type = form.score_format as ScoreFormatType
  const example = shownScore(type === 'time' ? 62_345 : 1_234_567, { score_format: type, score_decimals: Number(form.score_decimals), score_unit: String(form.score_unit).trim() })
  return (
    <>
      <Field long id={`${prefix}-score_format`} label='Scores shown as' hint={`Pages show ${type === 'time' ? '62345' : '1234567'} as ${example}. The API and exports keep scores as whole numbers.`}>
        <select id={`${prefix}-score_format`} value={type} disabled={disabled} aria-describedby={`${prefix}-score_format-hint`} onChange={event => { const next = event.currentTarget.value as ScoreFormatType; set({ score_format: next, score_decimals: String(DEFAULT_DECIMALS[next]) }) }}>
          <option value='integer'>Whole numbers (1,234)</option>
          <option value='decimal'>Decimals (the score in hundredths: 12.34)</option>
          <option value='time'>Times (the score in ms: 1:02.345)</option>
        </select>
      </Field>
      <Field id={`${prefix}-score_decimals`} label={type === 'time' ? 'Digits of the seconds shown' : 'Decimals'}>
        <input id={`${prefix}-score_decimals`} name='score_decimals' type='number' min={type === 'decimal' ? 1 : 0} max={type === 'integer' ? 0 : type === 'time' ? 3 : 6} value={String(form.score_decimals)} disabled={disabled || type === 'integer'} onInput={event => { set({ score_decimals: event.currentTarget.value }) }} />
      </Field>
      <Field id={`${prefix}-score_unit`} label='Unit after each score' hint='Up to 16 characters ("coins", "m"); empty for none.'>
        <input id={`${prefix}-score_unit`} name='score_unit' value={String(form.score_unit)} maxLength={16} disabled={disabled} aria-describedby={`${prefix}-score_unit-hint`} onInput={event => { set({ score_unit: event.currentTarget.value }) }} />
      </Field>
    </>
  )
}

/** Every setting of the game, saved together; closing the season. */
export function SettingsTab ({ game, onSaved }: { game: GameWithStats, onSaved: () => void }) {
  const [form, setForm] = useState<Form>(() => formOf(game))
  // What the server holds, as far as this tab knows: the game read at first, then each form saved.
  // Compared with it, not with the game record, a second save names only what changed since the
  // first, even while the record is still being read again.
  const [saved, setSaved] = useState<Form>(() => formOf(game))
  const [closing, setClosing] = useState(false)
  const write = useWrite()
  const viewer = useOperator().role === 'viewer'
  const set = (name: string, value: string | boolean | string[]): void => { setForm({ ...form, [name]: value }) }
  const text = (name: string) => ({ id: `setting-${name}`, name, value: form[name] as string, disabled: viewer, onInput: (event: Event) => { set(name, (event.currentTarget as HTMLInputElement).value) } })

  async function save (event: Event): Promise<void> {
    event.preventDefault()
    const changes = changesOf(saved, form)
    if (Object.keys(changes).length === 0) {
      await write.run(async () => {}, 'Nothing to save: no setting changed.')
      return
    }
    if (await write.run(async () => await api('PATCH', gamePath(game.game_id), changes), `Saved: ${Object.keys(changes).join(', ')}.`)) {
      setSaved(form)
      onSaved()
    }
  }
  async function closeSeason (): Promise<void> {
    if (await write.run(async () => await api('POST', gamePath(game.game_id, '/seasons'), {}), `Season ${game.season} is closed and archived; season ${game.season + 1} begins empty.`)) onSaved()
    setClosing(false)
  }

  return (
    <>
      <form class='card form-grid' onSubmit={save} aria-labelledby='settings-title'>
        <h2 id='settings-title' class='wide'>Settings</h2>
        <Field id='setting-name' label='Name'><input {...text('name')} maxLength={200} required /></Field>
        <Field id='setting-developer' label='Developer (a username)' hint="Their scores are marked as the developer's."><input {...text('developer')} maxLength={30} aria-describedby='setting-developer-hint' /></Field>
        <div class='field check wide'>
          <input id='setting-approved' type='checkbox' checked={form.approved as boolean} disabled={viewer} onChange={event => { set('approved', event.currentTarget.checked) }} />
          <label for='setting-approved'>Approved: the game's scores count and its page can be played</label>
        </div>
        <Field id='setting-order' label='Which scores are better' hint='It cannot change once the game has entries.'>
          <select id='setting-order' value={form.order as string} disabled={viewer} onChange={event => { set('order', event.currentTarget.value) }} aria-describedby='setting-order-hint'>
            <option value='desc'>Higher (points)</option>
            <option value='asc'>Lower (times, strokes)</option>
          </select>
        </Field>
        <ScoreFormatFields form={form} set={values => { setForm({ ...form, ...values }) }} disabled={viewer} prefix='setting' />
        <Field long id='setting-guests' label='Guests' hint='Visitors of the play page may play at once under a generated name; signing up keeps their play.'>
          <select id='setting-guests' value={form.guests as string} disabled={viewer} onChange={event => { set('guests', event.currentTarget.value) }} aria-describedby='setting-guests-hint'>
            <option value='off'>No guests</option>
            <option value='listed'>Guests play, shown on the boards</option>
            <option value='unlisted'>Guests play, shown once they sign up</option>
          </select>
        </Field>
        <fieldset class='field'>
          <legend>Calendar boards</legend>
          <div class='checks'>
            {PERIODS.map(kind => (
              <span class='check' key={kind}>
                <input id={`setting-period-${kind}`} type='checkbox' disabled={viewer} checked={(form.periods as string[]).includes(kind)} onChange={event => { set('periods', PERIODS.filter(one => one === kind ? event.currentTarget.checked : (form.periods as string[]).includes(one))) }} />
                <label for={`setting-period-${kind}`}>{kind}</label>
              </span>
            ))}
          </div>
        </fieldset>
        <Field id='setting-timezone' label='Time zone' hint='An IANA zone such as Europe/Paris: periods reset at its midnights.'><input {...text('timezone')} maxLength={64} aria-describedby='setting-timezone-hint' /></Field>
        <Field id='setting-keep_periods' label='Past periods kept'><input {...text('keep_periods')} type='number' min={0} /></Field>
        <Field id='setting-score_min' label='Lowest score accepted' hint='Empty: no bound.'><input {...text('score_min')} type='number' aria-describedby='setting-score_min-hint' /></Field>
        <Field id='setting-score_max' label='Highest score accepted' hint='Empty: no bound.'><input {...text('score_max')} type='number' aria-describedby='setting-score_max-hint' /></Field>
        <Field id='setting-review_above' label='Hold for review above' hint='Empty: no rule.'><input {...text('review_above')} type='number' aria-describedby='setting-review_above-hint' /></Field>
        <Field id='setting-review_below' label='Hold for review below' hint='Empty: no rule.'><input {...text('review_below')} type='number' aria-describedby='setting-review_below-hint' /></Field>
        <Field id='setting-review_factor' label='Hold a score this many times better' hint="Than the player's best or the first place; above 1. Empty: no rule."><input {...text('review_factor')} type='number' min={1} step='any' aria-describedby='setting-review_factor-hint' /></Field>
        <Field id='setting-notify_top' label='Overtaken events reach rank'><input {...text('notify_top')} type='number' min={1} /></Field>
        <Field long id='setting-runs' label='Runs (proof of play)' hint='A run ties a score to the play time reported while it was earned.'>
          <select id='setting-runs' value={form.runs as string} disabled={viewer} onChange={event => { set('runs', event.currentTarget.value) }} aria-describedby='setting-runs-hint'>
            <option value='off'>Off</option>
            <option value='optional'>Optional: a score may have a run</option>
            <option value='required'>Required: every score has a run</option>
          </select>
        </Field>
        <Field id='setting-min_run_seconds' label='A run needs at least (s of play)'><input {...text('min_run_seconds')} type='number' min={0} /></Field>
        <Field id='setting-max_score_rate' label='Most points per second of play' hint='Lower-is-better boards: score units per second. Empty: no rule.'><input {...text('max_score_rate')} type='number' min={0} step='any' aria-describedby='setting-max_score_rate-hint' /></Field>
        <Field id='setting-implausible' label='A score its run cannot explain is'>
          <select id='setting-implausible' value={form.implausible as string} disabled={viewer} onChange={event => { set('implausible', event.currentTarget.value) }}>
            <option value='hold'>Held for review</option>
            <option value='refuse'>Refused</option>
          </select>
        </Field>
        <Field id='setting-run_ttl_s' label='A run lasts at most (s)'><input {...text('run_ttl_s')} type='number' min={60} /></Field>
        <Field long id='setting-submit_run' label='Browser games without a server' hint='Allowed: runs start and scores arrive with the public api_key alone (submit-run); only the run rules and the review queue guard them. A lower-is-better game also needs a floor for its times: score_min or review_below.'>
          <select id='setting-submit_run' value={form.submit_run as string} disabled={viewer} onChange={event => { set('submit_run', event.currentTarget.value) }} aria-describedby='setting-submit_run-hint'>
            <option value='off'>Not allowed</option>
            <option value='on'>Allowed, with a run (submit-run)</option>
          </select>
        </Field>
        <Field id='setting-max_entries' label='Most players kept'><input {...text('max_entries')} type='number' min={1} /></Field>
        <Field id='setting-max_meta_bytes' label='Most meta bytes kept'><input {...text('max_meta_bytes')} type='number' min={0} /></Field>
        <div class='actions wide'><WriteButton type='submit' busy={write.busy}>Save settings</WriteButton></div>
        <div class='wide'><Problem text={write.problem} /><Notice text={write.notice} /></div>
      </form>
      <section class='card' aria-labelledby='season-title'>
        <h2 id='season-title'>Season {game.season}</h2>
        <p>Began {formatTime(game.season_started_at)}. Closing it archives the all-time board (still readable) and starts an empty one.</p>
        <WriteButton kind='danger' busy={write.busy} onClick={() => { setClosing(true) }}>Close season {game.season}</WriteButton>
      </section>
      <Confirm open={closing} title={`Close season ${game.season}?`} confirm='Close the season' busy={write.busy} onCancel={() => { setClosing(false) }} onConfirm={() => { void closeSeason() }}>
        <p>Every player starts again from nothing on the all-time board. The season's board stays readable as an archive.</p>
      </Confirm>
    </>
  )
}
