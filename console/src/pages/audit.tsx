import { useState } from 'preact/hooks'
import { gamePath, withQuery } from '../api.js'
import { More, Problem, TableBox, When, counted, usePaged } from '../ui.js'
import type { AuditEntry } from '../../../src/routes/admin/records.js'

export function AuditPage () {
  return (
    <>
      <h1>Audit log</h1>
      <p class='muted'>Every change made by an operator token, the command line or the service itself, newest first. Secrets are masked.</p>
      <AuditList />
    </>
  )
}

/** The audit log, everyone's or one game's, narrowed by action and actor, page by page. */
export function AuditList ({ gameId }: { gameId?: string }) {
  const [action, setAction] = useState('')
  const [actor, setActor] = useState('')
  const path = gameId === undefined ? '/admin/audit' : gamePath(gameId, '/audit')
  const list = usePaged<AuditEntry>(cursor => withQuery(path, { action, actor, limit: 50, cursor }), [path, action, actor])
  const entries = list.items
  return (
    <section aria-label='Audit entries'>
      {/* Filters: side by side in line, whatever hint is under a field; one under the other on a phone. */}
      <form class='toolbar filters' onSubmit={event => { event.preventDefault() }}>
        <div class='field'>
          <label for='audit-action'>Action</label>
          <input id='audit-action' placeholder='game.update, or key.' value={action} onChange={event => { setAction(event.currentTarget.value.trim()) }} aria-describedby='audit-action-hint' />
          <small id='audit-action-hint' class='hint'>An action, or a kind of record ending with a dot.</small>
        </div>
        <div class='field'>
          <label for='audit-actor'>Actor</label>
          <input id='audit-actor' placeholder="a token's name, cli:…" value={actor} onChange={event => { setActor(event.currentTarget.value.trim()) }} />
        </div>
      </form>
      <Problem text={list.problem} />
      {entries.length === 0 && !list.loading && list.problem === null && <p>Nothing recorded{action === '' && actor === '' ? ' yet' : ' that matches'}.</p>}
      {entries.length > 0 && (
        <TableBox label='Audit entries'>
          <table id='audit-table'>
            <thead><tr><th scope='col'>When</th><th scope='col'>Who</th><th scope='col'>What</th>{gameId === undefined && <th scope='col'>Game</th>}<th scope='col'>Record</th><th scope='col'>Changed</th></tr></thead>
            <tbody>
              {entries.map(entry => (
                <tr key={entry.audit_id}>
                  <td class='when'><When iso={entry.at} /></td>
                  <td>{entry.actor} <span class='muted'>({entry.via})</span></td>
                  <th scope='row'><code>{entry.action}</code></th>
                  {gameId === undefined && <td>{entry.game_id === null ? '' : <a href={`#/games/${encodeURIComponent(entry.game_id)}`}>{entry.game_id}</a>}</td>}
                  {/* A long id (a game's, an API key) may break anywhere, so it does not take the width the changed fields need. */}
                  <td class='record'>{entry.target === null ? '—' : <span class='id'>{entry.target}</span>}</td>
                  <td><Changed entry={entry} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <More paged={list} />
    </section>
  )
}

/**
 * The fields an entry changed. A record created or deleted has all its
 * fields in the list (a game's are some 25, which ran to as many lines):
 * it says how many, and the list opens under it.
 */
function Changed ({ entry }: { entry: AuditEntry }) {
  // An erasure keeps counts, not a record: it says what it erased.
  if (entry.action.endsWith('.erase')) return <>{erasedOf(entry.after)}</>
  const made = entry.before === null && entry.after !== null ? 'created' : entry.after === null && entry.before !== null ? 'deleted' : null
  if (made === null || entry.changed.length === 0) return <>{entry.changed.join(', ')}</>
  return (
    <details class='changed'>
      <summary>{made}: {counted(entry.changed.length, 'field')}</summary>
      <div>{entry.changed.join(', ')}</div>
    </details>
  )
}

/** An erasure's counts: "erased: user 1, entries 2, playtime seconds 30", or that nothing was found. */
function erasedOf (counts: unknown): string {
  if (counts === null || typeof counts !== 'object') return ''
  const found = Object.entries(counts).filter((pair): pair is [string, number] => typeof pair[1] === 'number' && pair[1] > 0)
  if (found.length === 0) return 'nothing was found to erase'
  return `erased: ${found.map(([name, count]) => `${name.replaceAll('_', ' ')} ${count}`).join(', ')}`
}
