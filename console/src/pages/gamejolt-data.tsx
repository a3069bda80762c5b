import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Confirm, Field, More, Notice, Problem, StackedTable, TableBox, WriteButton, useOperator, usePaged, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { DataStoreSummary } from '../../../src/operations/gamejolt.js'
import type { DataItemSize, GamejoltLink } from '../../../src/store/gamejolt.js'
import { DATA_LIMITS, DATA_LIMITS_MAX, type DataLimits } from '../../../src/rules/gamejolt-data.js'

/** One item as GET …/gamejolt/data/item answers it. */
interface Item { owner: string | null, key: string, data: string, bytes: number }

/** How much of an item's data the page shows: a save of a megabyte is read, but only its start is drawn. */
const SHOWN_CHARACTERS = 4000

/** A size as people read it: "512 B", "3.4 KiB", "256 MiB", "4 GiB". */
function bytes (count: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB']
  let value = count
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++ }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]!}`
}
const ownerName = (owner: string | null): string => owner ?? "the game's global store"
/** The query that names an owner: none for the global store. */
const ownerQuery = (owner: string | null): Record<string, string | undefined> => ({ owner: owner ?? undefined })

/**
 * A game's Game Jolt data store (docs/gamejolt.md#data-store), while its
 * API is on: its usage against the limits, and whose stores hold items;
 * one store's items a click away.
 */
export function DataStoreCard ({ game, link, onLinkChanged }: { game: GameWithStats, link: GamejoltLink, onLinkChanged: () => void }) {
  const store = useRead(async () => await api<DataStoreSummary>('GET', gamePath(game.game_id, '/gamejolt/data')), [game.game_id])
  const limitsWrite = useWrite()
  // The limits are settings of the link: a PUT with the id and key it has (one omitted would be made anew).
  async function saveLimits (limits: Partial<DataLimits>): Promise<boolean> {
    const body = { gamejolt_game_id: link.gamejolt_game_id, private_key: link.private_key, data_limits: limits }
    const saved = await limitsWrite.run(async () => await api('PUT', gamePath(game.game_id, '/gamejolt'), body), "The data store's limits are saved.")
    if (saved) {
      store.reload()
      onLinkChanged()
    }
    return saved
  }
  // undefined: no store picked; null: the global store.
  const [owner, setOwner] = useState<string | null | undefined>(undefined)
  const data = store.data
  return (
    <section class='card' aria-labelledby='data-store-title'>
      <h2 id='data-store-title'>Cloud saves (data store)</h2>
      <p class='muted'>What builds keep with Game Jolt's data store: the game's global items, and each player's own.</p>
      <Problem text={store.problem} />
      {data !== undefined && (
        <dl class='figures' id='data-store-usage'>
          <div><dt>Items</dt><dd>{data.usage.items.toLocaleString()}</dd><dd class='limit'>of {data.limits.items_per_game.toLocaleString()} at most</dd></div>
          <div><dt>Size</dt><dd>{bytes(data.usage.bytes)}</dd><dd class='limit'>of {bytes(data.limits.game_bytes)} at most</dd></div>
          <div><dt>Each store</dt><dd>{data.limits.items_per_user.toLocaleString()}</dd><dd class='limit'>items at most, each up to {bytes(data.limits.item_bytes)}</dd></div>
        </dl>
      )}
      {data !== undefined && (
        <details class='more'>
          <summary>Change the limits</summary>
          <LimitsForm current={data.limits} busy={limitsWrite.busy} onSave={saveLimits} />
          <Problem text={limitsWrite.problem} />
          <Notice text={limitsWrite.notice} />
        </details>
      )}
      {data !== undefined && data.owners.length === 0 && <p id='data-store-empty'>No cloud saves yet.</p>}
      {data !== undefined && data.owners.length > 0 && (
        <TableBox label='Stores with items'>
          <StackedTable id='data-owners'>
            <thead><tr><th scope='col'>Store</th><th scope='col' class='number'>Items</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {data.owners.map(one => (
                <tr key={one.owner ?? ''}>
                  <th scope='row'>{one.owner === null ? <em>{ownerName(null)}</em> : one.owner}</th>
                  <td class='number' data-label='Items'>{one.items}</td>
                  <td class='row-actions'>
                    <button type='button' class='button secondary' aria-label={`Items of ${ownerName(one.owner)}`} aria-pressed={owner === one.owner} onClick={() => { setOwner(one.owner) }}>Items</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      {/* Keyed by the store: its page, its item shown and its question never outlive it. */}
      {owner !== undefined && <StoreItems key={owner ?? ''} game={game} owner={owner} onDeleted={store.reload} />}
    </section>
  )
}

/** Each limit as the form asks for it. */
const LIMIT_FIELDS: Array<{ name: keyof DataLimits, label: string, hint: string, size: boolean }> = [
  { name: 'item_bytes', label: 'Bytes of one item', hint: "The most an item's data may hold", size: true },
  { name: 'items_per_user', label: 'Items of one store', hint: "The most items of one player's store, and of the game's global store", size: false },
  { name: 'items_per_game', label: 'Items of the game', hint: 'The most items of every store together', size: false },
  { name: 'game_bytes', label: 'Bytes of the game', hint: 'The most bytes of every store together (keys and data)', size: true }
]

/**
 * The data store's limits (docs/gamejolt.md#data-store): an empty field
 * keeps its limit; each field says its range and default. A write that
 * would pass a lowered limit is refused from then on; nothing stored goes.
 */
function LimitsForm ({ current, busy, onSave }: { current: DataLimits, busy: boolean, onSave: (limits: Partial<DataLimits>) => Promise<boolean> }) {
  const viewer = useOperator().role === 'viewer'
  const [typed, setTyped] = useState<Partial<Record<keyof DataLimits, string>>>({})
  const shown = (field: typeof LIMIT_FIELDS[number], value: number): string => field.size ? `${value.toLocaleString()} (${bytes(value)})` : value.toLocaleString()
  async function save (event: Event): Promise<void> {
    event.preventDefault()
    const limits: Partial<DataLimits> = {}
    for (const { name } of LIMIT_FIELDS) {
      const value = (typed[name] ?? '').trim()
      if (value !== '') limits[name] = Number(value)
    }
    if (await onSave(limits)) setTyped({})
  }
  return (
    <form class='form-grid' id='data-limits-form' onSubmit={save}>
      {LIMIT_FIELDS.map(field => (
        <Field key={field.name} id={`data-limit-${field.name}`} label={field.label} hint={`${field.hint}: 1 to ${shown(field, DATA_LIMITS_MAX[field.name])}, ${shown(field, DATA_LIMITS[field.name])} by default. Empty: kept as it is.`}>
          <input
            id={`data-limit-${field.name}`} name={field.name} type='number' min={1} max={DATA_LIMITS_MAX[field.name]} step={1} inputMode='numeric'
            value={typed[field.name] ?? ''} placeholder={String(current[field.name])} disabled={viewer} aria-describedby={`data-limit-${field.name}-hint`}
            onInput={event => { setTyped({ ...typed, [field.name]: event.currentTarget.value }) }}
          />
        </Field>
      ))}
      <div class='actions wide'>
        <WriteButton type='submit' busy={busy}>Save the limits</WriteButton>
      </div>
    </form>
  )
}

/** One store's items, a page at a time: an item's data as text (its start, for a big one), and deleting one, asked first. */
function StoreItems ({ game, owner, onDeleted }: { game: GameWithStats, owner: string | null, onDeleted: () => void }) {
  const paged = usePaged<DataItemSize>(cursor => withQuery(gamePath(game.game_id, '/gamejolt/data/items'), { ...ownerQuery(owner), cursor }), [game.game_id, owner])
  const [item, setItem] = useState<Item | null>(null)
  const [removing, setRemoving] = useState<string | null>(null)
  const read = useWrite()
  const write = useWrite()
  const itemPath = (key: string): string => withQuery(gamePath(game.game_id, '/gamejolt/data/item'), { ...ownerQuery(owner), key })

  async function view (key: string): Promise<void> {
    setItem(null)
    await read.run(async () => { setItem(await api<Item>('GET', itemPath(key))) }, '')
  }
  async function remove (key: string): Promise<void> {
    if (await write.run(async () => await api('DELETE', itemPath(key)), `The item ${key} of ${ownerName(owner)} is deleted.`)) {
      if (item?.key === key) setItem(null)
      paged.reload()
      onDeleted()
    }
    setRemoving(null)
  }

  return (
    <section class='data-items' aria-labelledby='data-items-title'>
      <h3 id='data-items-title'>{owner === null ? 'Items of the global store' : `Items of ${owner}`}</h3>
      <Problem text={paged.problem ?? read.problem ?? write.problem} />
      <Notice text={write.notice} />
      {paged.first !== undefined && paged.items.length === 0 && <p>No items left.</p>}
      {paged.items.length > 0 && (
        <TableBox label={`Items of ${ownerName(owner)}`}>
          <StackedTable id='data-items'>
            <thead><tr><th scope='col'>Key</th><th scope='col' class='number'>Size</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {paged.items.map(one => (
                <tr key={one.key}>
                  <th scope='row'><code>{one.key}</code></th>
                  <td class='number' data-label='Size'>{bytes(one.bytes)}</td>
                  <td class='row-actions'>
                    <button type='button' class='button secondary' disabled={read.busy} aria-label={`View ${one.key}`} onClick={() => { void view(one.key) }}>View</button>
                    <WriteButton kind='danger' busy={write.busy} label={`Delete ${one.key}`} onClick={() => { setRemoving(one.key) }}>Delete</WriteButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      <More paged={paged} />
      {item !== null && (
        <section class='data-item' aria-labelledby='data-item-title'>
          <h3 id='data-item-title'><code>{item.key}</code>, {bytes(item.bytes)}</h3>
          {/* Text, never markup: Preact escapes it. A big save is read whole, but only its start is drawn. */}
          <pre id='data-item-text' tabIndex={0}>{item.data.length > SHOWN_CHARACTERS ? item.data.slice(0, SHOWN_CHARACTERS) : item.data}</pre>
          {item.data.length > SHOWN_CHARACTERS && <p class='muted small' id='data-item-cut'>The first {SHOWN_CHARACTERS} of {item.data.length} characters.</p>}
          <button type='button' class='button secondary' onClick={() => { setItem(null) }}>Close</button>
        </section>
      )}
      <Confirm open={removing !== null} title={`Delete the item ${removing ?? ''}?`} confirm='Delete the item' busy={write.busy} onCancel={() => { setRemoving(null) }} onConfirm={() => { void remove(removing!) }}>
        <p>The game finds no item <code>{removing}</code> in {ownerName(owner)} from now on: a player's save is lost. This cannot be undone.</p>
      </Confirm>
    </section>
  )
}
