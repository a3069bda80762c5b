import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Confirm, Field, Notice, Problem, StackedTable, TableBox, WriteButton, formatTime, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { Delivery, ListedWebhook as Webhook } from '../../../src/routes/admin/records.js'

/** A receiver's answer in a few words: its HTTP status, or why none came ("connection refused"). */
function answerOf ({ last_status: status, last_error: error }: { last_status: number | null, last_error: string | null }): string {
  if (status !== null) return `HTTP ${status}`
  if (error === null) return '—'
  if (error.includes('ECONNREFUSED')) return 'connection refused'
  if (error.includes('ENOTFOUND')) return 'no such host'
  return error
}

/** Whether the webhook's receiver takes its deliveries: the first thing an operator needs to know of it. */
function Health ({ webhook }: { webhook: Webhook }) {
  const { health } = webhook
  if (health.last_attempt_at === null) return <p class='health'><span class='badge'>not tried yet</span> <span class='muted'>No delivery has been attempted.</span></p>
  if (health.failing_since === null) return <p class='health'><span class='badge ok'>working</span> last answer: {answerOf(health)} ({formatTime(health.last_attempt_at)})</p>
  return <p class='health'><span class='badge bad'>failing</span> since {formatTime(health.failing_since)} · last answer: {answerOf(health)}</p>
}

const EVENTS = ['score.best', 'board.first', 'board.overtaken', 'score.held', 'score.approved', 'score.rejected', 'period.closed', 'season.closed', 'player.hidden', 'player.shown', 'rating.changed', 'achievement.unlocked']

/** The game's webhooks: add one (its signing secret shown once), test it, read its deliveries, send one again. */
export function WebhooksTab ({ game }: { game: GameWithStats }) {
  const list = useRead(async () => await api<{ items: Webhook[] }>('GET', gamePath(game.game_id, '/webhooks')), [game.game_id])
  const write = useWrite()
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<string[]>([])
  const [secret, setSecret] = useState<string | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const [removing, setRemoving] = useState<Webhook | null>(null)

  async function create (event: Event): Promise<void> {
    event.preventDefault()
    const body = { url: url.trim(), events: events.length === 0 ? ['*'] : events, ...(description.trim() === '' ? {} : { description: description.trim() }) }
    if (await write.run(async () => { setSecret((await api<{ secret: string }>('POST', gamePath(game.game_id, '/webhooks'), body)).secret) }, 'The webhook is added. Give its signing secret to the receiver now: it is not shown again.')) {
      setUrl('')
      setDescription('')
      setEvents([])
      list.reload()
    }
  }
  async function remove (webhook: Webhook): Promise<void> {
    if (await write.run(async () => await api('DELETE', gamePath(game.game_id, `/webhooks/${webhook.webhook_id}`)), 'The webhook is removed, with its pending deliveries.')) list.reload()
    setRemoving(null)
  }
  const toggle = (type: string, on: boolean): void => { setEvents(on ? [...events, type] : events.filter(one => one !== type)) }

  return (
    <>
      <details class='card'>
        <summary>Add a webhook</summary>
        <form class='form-grid' onSubmit={create}>
          <Field id='webhook-url' label='Receiver URL' hint='http:// or https://, on a public address unless WEBHOOK_ALLOW_PRIVATE=true.'>
            <input id='webhook-url' type='url' required maxLength={2048} value={url} onInput={event => { setUrl(event.currentTarget.value) }} aria-describedby='webhook-url-hint' />
          </Field>
          <Field id='webhook-description' label='What it is for (optional)'>
            <input id='webhook-description' maxLength={200} value={description} onInput={event => { setDescription(event.currentTarget.value) }} />
          </Field>
          <fieldset class='field wide'>
            <legend>Events (none ticked: every event)</legend>
            <div class='checks'>
              {EVENTS.map(type => (
                <span key={type} class='check'><input id={`event-${type}`} type='checkbox' checked={events.includes(type)} onChange={event => { toggle(type, event.currentTarget.checked) }} /><label for={`event-${type}`}>{type}</label></span>
              ))}
            </div>
          </fieldset>
          <div class='actions'><WriteButton type='submit' busy={write.busy}>Add webhook</WriteButton></div>
        </form>
      </details>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      {secret !== null && (
        <section class='card secret' aria-labelledby='webhook-secret-title'>
          <h2 id='webhook-secret-title'>Signing secret</h2>
          <p><code id='webhook-secret'>{secret}</code> <button type='button' class='button secondary' onClick={() => { void navigator.clipboard.writeText(secret).catch(() => {}) }}>Copy secret</button></p>
          <p class='muted'>The receiver checks each delivery's signature with it (Standard Webhooks). It is shown this once.</p>
          <button type='button' class='button secondary' onClick={() => { setSecret(null) }}>I have kept the secret</button>
        </section>
      )}
      {list.data !== undefined && list.data.items.length === 0 && <p>No webhooks: nothing is sent anywhere when scores change.</p>}
      {list.data?.items.map(webhook => (
        <section key={webhook.webhook_id} class='card' aria-labelledby={`webhook-${webhook.webhook_id}`}>
          <h2 id={`webhook-${webhook.webhook_id}`} class='url'>{webhook.url}</h2>
          <Health webhook={webhook} />
          <p class='muted'>{webhook.description ?? 'No description.'} Events: {webhook.events.join(', ')}. Added {formatTime(webhook.created_at)}.</p>
          <div class='toolbar'>
            <WriteButton kind='secondary' busy={write.busy} onClick={() => { void write.run(async () => await api('POST', gamePath(game.game_id, `/webhooks/${webhook.webhook_id}/test`), {}), 'A webhook.test event is on its way: see the deliveries.') }}>Send a test event</WriteButton>
            <button type='button' class='button secondary' aria-expanded={open === webhook.webhook_id} onClick={() => { setOpen(open === webhook.webhook_id ? null : webhook.webhook_id) }}>Deliveries</button>
            <WriteButton kind='danger' busy={write.busy} onClick={() => { setRemoving(webhook) }}>Remove</WriteButton>
          </div>
          {open === webhook.webhook_id && <Deliveries game={game} webhook={webhook} />}
        </section>
      ))}
      <Confirm open={removing !== null} title='Remove this webhook?' confirm='Remove the webhook' busy={write.busy} onCancel={() => { setRemoving(null) }} onConfirm={() => { void remove(removing!) }}>
        <p>Nothing more is sent to <code>{removing?.url}</code>, and its pending deliveries are dropped.</p>
      </Confirm>
    </>
  )
}

type Which = 'done' | 'pending'

function Deliveries ({ game, webhook }: { game: GameWithStats, webhook: Webhook }) {
  // null until the operator picks a list: then the one that needs attention.
  const [picked, setPicked] = useState<Which | null>(null)
  const list = useRead(async () => {
    const read = async (status: Which) => ({ status, ...await api<{ total: number, items: Delivery[] }>('GET', withQuery(gamePath(game.game_id, `/webhooks/${webhook.webhook_id}/deliveries`), { status, limit: 50 })) })
    // A failing webhook's deliveries wait for their retries: show those first. Either way, not an empty list when the other has any.
    const order: Which[] = picked !== null ? [picked] : webhook.health.failing_since !== null ? ['pending', 'done'] : ['done', 'pending']
    const first = await read(order[0]!)
    return first.total > 0 || order.length === 1 ? first : await read(order[1]!)
  }, [picked])
  const status = list.data?.status ?? picked ?? 'done'
  const write = useWrite()
  async function redeliver (delivery: Delivery): Promise<void> {
    if (await write.run(async () => await api('POST', gamePath(game.game_id, `/webhooks/${webhook.webhook_id}/deliveries/${delivery.delivery_id}/redeliver`), {}), 'It is sent again, from now.')) list.reload()
  }
  return (
    <div class='deliveries'>
      <div class='toolbar' role='group' aria-label='Which deliveries'>
        <button type='button' class='button secondary' aria-pressed={status === 'done'} onClick={() => { setPicked('done') }}>Finished</button>
        <button type='button' class='button secondary' aria-pressed={status === 'pending'} onClick={() => { setPicked('pending') }}>Pending</button>
        <button type='button' class='button secondary' onClick={list.reload}>Refresh</button>
      </div>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      {list.data !== undefined && list.data.items.length === 0 && <p>None {status === 'done' ? 'finished' : 'pending'}.</p>}
      {list.data !== undefined && list.data.items.length > 0 && (
        // Stacked: on a phone each delivery is a card, its Send again under its cells, not off the screen's right edge.
        <TableBox label='Deliveries'>
          <StackedTable id={`deliveries-${webhook.webhook_id}`}>
            <thead><tr><th scope='col'>Event</th><th scope='col'>State</th><th scope='col' class='number'>Attempts</th><th scope='col'>Last answer</th><th scope='col'>When</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {list.data.items.map(delivery => (
                <tr key={delivery.delivery_id}>
                  <th scope='row'>{delivery.type}</th>
                  <td data-label='State'><span class={`badge ${delivery.status === 'delivered' ? 'ok' : delivery.status === 'dead' ? 'bad' : 'waiting'}`}>{delivery.status === 'pending' && delivery.attempts > 0 ? 'retrying' : delivery.status}</span></td>
                  <td class='number' data-label='Attempts'>{delivery.attempts}</td>
                  <td data-label='Last answer'>{delivery.last_status === null && delivery.last_error === null ? <span class='muted'>—</span> : answerOf(delivery)}</td>
                  <td data-label='When'>{formatTime(delivery.finished_at ?? delivery.next_attempt_at ?? delivery.created_at)}</td>
                  <td class='row-actions'>{delivery.status !== 'pending' && <WriteButton kind='secondary' busy={write.busy} onClick={() => { void redeliver(delivery) }} label={`Send ${delivery.type} again`}>Send again</WriteButton>}</td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
    </div>
  )
}
