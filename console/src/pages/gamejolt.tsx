import { useState } from 'preact/hooks'
import { ApiProblem, api, gamePath } from '../api.js'
import { Confirm, Field, Notice, Problem, WriteButton, useOperator, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { GamejoltLink } from '../../../src/store/gamejolt.js'
import { MAX_GAMEJOLT_ID } from '../../../src/rules/gamejolt-ids.js'
import { DataStoreCard } from './gamejolt-data.js'

/** What a private key may be: 8 to 128 visible ASCII characters (src/gamejolt/signature.ts), as an input's pattern. */
const KEY_PATTERN = '[\\x21-\\x7e]{8,128}'
/** Where the operator's steps are written down. */
const DOCS = 'docs/gamejolt.md, "Turning it on for a game"'

/** The settings, or null while the API is off (the API answers not_found then); forbidden: a token the service does not let read the key. */
type Read = { link: GamejoltLink | null, forbidden: false } | { link: null, forbidden: true }

/**
 * A game's Game Jolt API (docs/gamejolt.md#turning-it-on-for-a-game): on or
 * off; when on, its id and private key (masked until asked for), a new key
 * and turning it off, each asked first; when off, turning it on with the id
 * and key its builds carry, or made ones. A viewer sees them, its buttons
 * disabled. While it is on, its cloud saves (gamejolt-data.tsx).
 */
export function GamejoltTab ({ game }: { game: GameWithStats }) {
  const settings = useRead<Read>(async () => {
    try {
      return { link: await api<GamejoltLink>('GET', gamePath(game.game_id, '/gamejolt')), forbidden: false }
    } catch (error) {
      if (error instanceof ApiProblem && error.code === 'not_found') return { link: null, forbidden: false }
      if (error instanceof ApiProblem && error.code === 'forbidden') return { link: null, forbidden: true }
      throw error
    }
  }, [game.game_id])
  const write = useWrite()
  const [asking, setAsking] = useState<'key' | 'off' | null>(null)
  const [shown, setShown] = useState(false)
  const [copied, setCopied] = useState<string | null>(null)
  const link = settings.data?.link ?? null
  const base = `${location.origin}/api/game/`

  async function put (body: Record<string, unknown>, done: string): Promise<boolean> {
    setCopied(null)
    const saved = await write.run(async () => await api('PUT', gamePath(game.game_id, '/gamejolt'), body), done)
    if (saved) settings.reload()
    return saved
  }
  async function newKey (): Promise<void> {
    await put({ gamejolt_game_id: link?.gamejolt_game_id }, 'A new private key is made: builds carrying the old one are refused from now on.')
    setAsking(null)
  }
  async function turnOff (): Promise<void> {
    setCopied(null)
    if (await write.run(async () => await api('DELETE', gamePath(game.game_id, '/gamejolt')), 'The Game Jolt API is off for this game: its id and key are refused from now on.')) {
      setShown(false)
      settings.reload()
    }
    setAsking(null)
  }
  async function copy (text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text)
      setCopied('Private key copied.')
    } catch {
      setCopied('The browser did not allow copying: show the key, select it and copy it by hand.')
    }
  }

  return (
    <>
      <section class='card' aria-labelledby='gamejolt-title'>
        <h2 id='gamejolt-title'>
          Game Jolt API {settings.data !== undefined && !settings.data.forbidden && (link === null ? <span class='badge waiting' id='gamejolt-state'>off</span> : <span class='badge ok' id='gamejolt-state'>on</span>)}
        </h2>
        <p class='muted'>
          Games built with a Game Jolt client (GameMaker, Godot, Unity, Construct…) talk to this service when their API base URL is <code id='gamejolt-base'>{base}</code>, with the game id and the private key below. The steps are in {DOCS}.
        </p>
        <Problem text={settings.problem ?? write.problem} />
        <Notice text={write.notice} />
        {settings.data?.forbidden === true && <p id='gamejolt-forbidden'>This token may not read these settings: the private key is a secret.</p>}
        {link !== null && (
          <>
            <dl class='pairs'>
              <dt>Game Jolt game id</dt><dd><code id='gamejolt-game-id'>{link.gamejolt_game_id}</code></dd>
              <dt>Primary table id</dt><dd><code id='gamejolt-table-id'>{link.primary_table_id}</code> <span class='muted small'>the game's own board</span></dd>
              <dt>Private key</dt>
              <dd>
                {shown ? <code id='gamejolt-key'>{link.private_key}</code> : <code id='gamejolt-key' aria-label='Private key, hidden'>••••••••••••••••</code>}
                {/* The two buttons wrap together, under the key on a phone, rather than one by one. */}
                <span class='actions'>
                  <button type='button' class='button secondary' onClick={() => { setShown(!shown) }}>{shown ? 'Hide key' : 'Show key'}</button>
                  <button type='button' class='button secondary' onClick={() => { void copy(link.private_key) }}>Copy key</button>
                </span>
              </dd>
            </dl>
            <Notice text={copied} />
            <p class='muted small'>The private key signs every request a build makes: keep it out of web pages and repositories, and give it only to the game's developer.</p>
            <div class='actions'>
              <WriteButton kind='secondary' busy={write.busy} onClick={() => { setAsking('key') }}>Make a new key</WriteButton>
              <WriteButton kind='danger' busy={write.busy} onClick={() => { setAsking('off') }}>Turn the API off</WriteButton>
            </div>
          </>
        )}
        {settings.data !== undefined && !settings.data.forbidden && (
          link === null
            ? <LinkForm current={null} submit='Turn the API on' busy={write.busy} onSave={async body => await put(body, 'The Game Jolt API is on for this game.')} />
            : (
              <details class='more'>
                <summary>Change the ids or the key</summary>
                <LinkForm current={link} submit='Save' busy={write.busy} onSave={async body => await put(body, body.private_key === link.private_key && body.gamejolt_game_id === link.gamejolt_game_id ? 'The Game Jolt settings are saved.' : 'The Game Jolt settings are saved: builds carrying the old id or key are refused from now on.')} />
              </details>
              )
        )}
      </section>
      {link !== null && <DataStoreCard game={game} link={link} onLinkChanged={settings.reload} />}
      <Confirm open={asking === 'key'} title='Make a new private key?' confirm='Make a new key' busy={write.busy} onCancel={() => { setAsking(null) }} onConfirm={() => { void newKey() }}>
        <p>Builds carrying the old key stop working at once: every request they sign is refused until they carry the new one.</p>
      </Confirm>
      <Confirm open={asking === 'off'} title='Turn the Game Jolt API off?' confirm='Turn it off' busy={write.busy} onCancel={() => { setAsking(null) }} onConfirm={() => { void turnOff() }}>
        <p>Every build of this game using Game Jolt's API is refused from now on, and its id and key are forgotten: turned on again, it gets a new key unless you give the old one.</p>
      </Confirm>
    </>
  )
}

/**
 * The ids and key to take, as a moved game's builds carry them. Turning
 * the API on (`current` null), an empty field is made (the game's id, else
 * a free one; a new random key; the table id made of the board's); while
 * it is on, an empty field keeps what is there, so changing one never
 * makes a new key by the way.
 */
function LinkForm ({ current, submit, busy, onSave }: { current: GamejoltLink | null, submit: string, busy: boolean, onSave: (body: Record<string, unknown>) => Promise<boolean> }) {
  const viewer = useOperator().role === 'viewer'
  const [id, setId] = useState('')
  const [key, setKey] = useState('')
  const [table, setTable] = useState('')
  async function save (event: Event): Promise<void> {
    event.preventDefault()
    const body: Record<string, unknown> = {}
    if (id.trim() !== '') body.gamejolt_game_id = Number(id.trim())
    else if (current !== null) body.gamejolt_game_id = current.gamejolt_game_id
    if (key.trim() !== '') body.private_key = key.trim()
    else if (current !== null) body.private_key = current.private_key
    if (table.trim() !== '') body.primary_table_id = Number(table.trim())
    if (await onSave(body)) { setId(''); setKey(''); setTable('') }
  }
  const kept = current === null ? null : 'Empty: kept as it is.'
  return (
    <form class='form-grid' onSubmit={save}>
      <Field id='gamejolt-id-input' label='Game Jolt game id' hint={`The id its builds carry, 1 to ${MAX_GAMEJOLT_ID}. ${kept ?? 'Empty: the one it had, or a free one.'}`}>
        <input id='gamejolt-id-input' name='gamejolt_game_id' type='number' min={1} max={MAX_GAMEJOLT_ID} step={1} inputMode='numeric' value={id} placeholder={current === null ? undefined : String(current.gamejolt_game_id)} disabled={viewer} aria-describedby='gamejolt-id-input-hint' onInput={event => { setId(event.currentTarget.value) }} />
      </Field>
      <Field id='gamejolt-key-input' label='Private key' hint={`The key its builds carry, 8 to 128 visible characters. ${kept ?? 'Empty: a new random one.'}`}>
        <input id='gamejolt-key-input' name='private_key' pattern={KEY_PATTERN} maxLength={128} autoComplete='off' spellcheck={false} value={key} disabled={viewer} aria-describedby='gamejolt-key-input-hint' onInput={event => { setKey(event.currentTarget.value) }} />
      </Field>
      <Field id='gamejolt-table-input' label='Primary table id' hint={`The table id its builds use for the game's own board. ${kept ?? 'Empty: one made of the board\'s id.'}`}>
        <input id='gamejolt-table-input' name='primary_table_id' type='number' min={1} max={MAX_GAMEJOLT_ID} step={1} inputMode='numeric' value={table} placeholder={current === null ? undefined : String(current.primary_table_id)} disabled={viewer} aria-describedby='gamejolt-table-input-hint' onInput={event => { setTable(event.currentTarget.value) }} />
      </Field>
      <div class='actions wide'>
        <WriteButton type='submit' busy={busy}>{submit}</WriteButton>
      </div>
    </form>
  )
}
