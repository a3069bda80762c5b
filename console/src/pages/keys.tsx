import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Confirm, Notice, Problem, StackedTable, TableBox, WriteButton, formatTime, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { Key } from '../../../src/routes/admin/records.js'

/** The game's API keys: issue one (its secret shown once, with a copy button), revoke one. */
export function KeysTab ({ game }: { game: GameWithStats }) {
  const list = useRead(async () => await api<{ items: Key[] }>('GET', withQuery(gamePath(game.game_id, '/keys'), { limit: 100 })), [game.game_id])
  const write = useWrite()
  const [made, setMade] = useState<{ api_key: string, api_secret: string } | null>(null)
  const [copied, setCopied] = useState<string | null>(null)
  const [revoking, setRevoking] = useState<string | null>(null)
  async function create (): Promise<void> {
    setCopied(null)
    if (await write.run(async () => { setMade(await api('POST', '/admin/keys', { game_id: game.game_id })) }, 'A new key is issued. Copy its secret now: it is not shown again.')) list.reload()
  }
  async function copy (text: string, what: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text)
      setCopied(`${what} copied.`)
    } catch {
      setCopied(`The browser did not allow copying: select the ${what.toLowerCase()} and copy it by hand.`)
    }
  }
  async function revoke (apiKey: string): Promise<void> {
    if (await write.run(async () => await api('POST', `/admin/keys/${encodeURIComponent(apiKey)}/revoke`, {}), 'The key is revoked: requests signed with it are refused from now on.')) list.reload()
    setRevoking(null)
  }
  return (
    <>
      <div class='toolbar'><WriteButton busy={write.busy} onClick={() => { void create() }}>Issue a new API key</WriteButton></div>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      {made !== null && (
        <section class='card secret' aria-labelledby='secret-title'>
          <h2 id='secret-title'>The new key</h2>
          <p>Give both to the game's developer. <strong>The secret is shown this once</strong>: it signs submissions, so keep it out of web pages and repositories.</p>
          <dl class='pairs'>
            <dt>api_key</dt><dd><code id='new-api-key'>{made.api_key}</code> <button type='button' class='button secondary' onClick={() => { void copy(made.api_key, 'Key') }}>Copy key</button></dd>
            <dt>api_secret</dt><dd><code id='new-api-secret'>{made.api_secret}</code> <button type='button' class='button secondary' onClick={() => { void copy(made.api_secret, 'Secret') }}>Copy secret</button></dd>
          </dl>
          <Notice text={copied} />
          <button type='button' class='button secondary' onClick={() => { setMade(null) }}>I have kept the secret</button>
        </section>
      )}
      {list.data !== undefined && list.data.items.length === 0 && <p>No keys yet: issue one so the game can submit scores.</p>}
      {list.data !== undefined && list.data.items.length > 0 && (
        // Stacked: on a phone each key is a card, its Embed and Revoke under its cells, not off the screen's right edge.
        <TableBox label='API keys'>
          <StackedTable id='keys-table'>
            <thead><tr><th scope='col'>Key</th><th scope='col'>Issued</th><th scope='col'>State</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {list.data.items.map(key => (
                <tr key={key.api_key}>
                  <th scope='row'><code>{key.api_key}</code></th>
                  <td data-label='Issued'>{formatTime(key.created_at)}</td>
                  <td data-label='State'>{key.revoked ? <span class='badge waiting'>revoked</span> : <span class='badge ok'>live</span>}{key.rate_limit === undefined ? '' : ` · ${key.rate_limit} per window`}</td>
                  <td class='row-actions'>
                    {/* The game's board on any page, with this key: the examples page fills in its snippets (docs/embed.md). */}
                    {!key.revoked && <a class='button secondary' href={withQuery('/embed/', { game: game.game_id, api_key: key.api_key })} target='_blank' rel='noreferrer' aria-label={`Embed the board with ${key.api_key}`}>Embed</a>}
                    {!key.revoked && <WriteButton kind='danger' busy={write.busy} onClick={() => { setRevoking(key.api_key) }} label={`Revoke ${key.api_key}`}>Revoke</WriteButton>}
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      <Confirm open={revoking !== null} title='Revoke this key?' confirm='Revoke the key' busy={write.busy} onCancel={() => { setRevoking(null) }} onConfirm={() => { void revoke(revoking!) }}>
        <p>Every request with <code>{revoking}</code> is refused from now on. A revoked key cannot be brought back; issue a new one instead.</p>
      </Confirm>
    </>
  )
}
