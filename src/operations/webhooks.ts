import { randomBytes } from 'node:crypto'
import { fail } from '../errors.js'
import { type StoredDelivery, type StoredWebhook } from '../store/webhooks.js'
import { EVENT_TYPES, TEST_EVENT, type GameEvent } from '../store/events.js'
import { newWebhookSecret, receiverUrlProblem } from '../webhooks/send.js'
import { bodyOf } from '../webhooks/dispatcher.js'
import { PublicDelivery, PublicWebhook, PublicWebhookHealth, healthyWebhook, publicDelivery } from './answers.js'
import { OperationContext } from './context.js'
import { now } from './games.js'
import { readInput, schemas } from './input.js'

/** Webhooks, their deliveries and the outbox's events. */

export function webhooksOperations ({ webhooks, events, webhookAllowPrivate, audit, existingWebhook, existingGame }: OperationContext) {
  return {
    /** A webhook for the game's events; the answer shows its signing secret, this once. */
    async createWebhook (gameId: string, input: unknown): Promise<PublicWebhook & { secret: string }> {
      const body = readInput(schemas.createWebhook, input)
      const problem = await receiverUrlProblem(body.url, webhookAllowPrivate)
      if (problem !== undefined) fail('invalid_param', `Parameter "url" is not valid: ${problem}.`)
      const named = typeof body.events === 'string' ? body.events.split(',') : body.events ?? ['*']
      const webhook: StoredWebhook = {
        webhook_id: `wh_${randomBytes(12).toString('hex')}`,
        url: new URL(body.url).href,
        events: named.includes('*') ? ['*'] : EVENT_TYPES.filter(type => named.includes(type)),
        description: body.description ?? null,
        created_at: now(),
        secret: newWebhookSecret()
      }
      const game = await existingGame(gameId)
      if (!await webhooks.create(game.game_id, webhook)) fail('not_found', 'No such game.')
      const { secret, ...shown } = webhook
      await audit({ action: 'webhook.create', game_id: game.game_id, target: webhook.webhook_id, before: null, after: webhook })
      return { ...shown, secret }
    },

    /** The game's webhooks, each with how its receiver answers: an operator sees a failing one in the list. */
    async webhooks (gameId: string): Promise<{ game_id: string, items: Array<PublicWebhook & { health: PublicWebhookHealth }> }> {
      const game = await existingGame(gameId)
      const list = await webhooks.list(game.game_id)
      const health = await webhooks.health(game.game_id, list.map(webhook => webhook.webhook_id))
      return { game_id: game.game_id, items: list.map((webhook, i) => healthyWebhook(webhook, health[i] ?? null)) }
    },

    async webhook (gameId: string, webhookId: string): Promise<PublicWebhook & { health: PublicWebhookHealth }> {
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const [health] = await webhooks.health(game.game_id, [webhook.webhook_id])
      return healthyWebhook(webhook, health ?? null)
    },

    /** Removes the webhook; its pending deliveries are dropped. */
    async deleteWebhook (gameId: string, webhookId: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const before = await existingWebhook(game.game_id, webhookId)
      if (!await webhooks.delete(game.game_id, webhookId)) fail('not_found', 'No such webhook for this game.')
      await audit({ action: 'webhook.delete', game_id: game.game_id, target: webhookId, before, after: null })
      return {}
    },

    /** A webhook.test delivery to this webhook only, sent like any other (signed, retried). */
    async testWebhook (gameId: string, webhookId: string, input?: unknown): Promise<PublicDelivery> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const at = Date.now()
      const body = bodyOf({ type: TEST_EVENT, timestamp: new Date(at).toISOString(), data: { game_id: game.game_id, webhook_id: webhook.webhook_id } })
      const { made: [id] } = await webhooks.enqueue(game.game_id, at, [], [{ webhookId: webhook.webhook_id, messageId: `test_${randomBytes(12).toString('hex')}`, type: TEST_EVENT, body }])
      const delivery = publicDelivery((id === undefined ? null : await webhooks.delivery(game.game_id, id)) ?? fail('not_found', 'No such webhook for this game.'))
      await audit({ action: 'webhook.test', game_id: game.game_id, target: webhook.webhook_id, before: null, after: { delivery_id: delivery.delivery_id, message_id: delivery.message_id } })
      return delivery
    },

    /** A webhook's delivery log: finished deliveries newest first, or pending ones by when next due. */
    async webhookDeliveries (gameId: string, webhookId: string, input?: unknown): Promise<{ game_id: string, webhook_id: string, status: 'pending' | 'done', total: number, items: PublicDelivery[] }> {
      const query = readInput(schemas.deliveries, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const status = query.status ?? 'done'
      const { total, items } = await webhooks.deliveries(game.game_id, webhook.webhook_id, status, query.offset ?? 0, query.limit ?? 50)
      return { game_id: game.game_id, webhook_id: webhook.webhook_id, status, total, items: items.map(publicDelivery) }
    },

    /** Sends a finished delivery again, with its webhook-id, from now, with a fresh retry window. */
    async redeliver (gameId: string, webhookId: string, deliveryId: string, input?: unknown): Promise<PublicDelivery> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const before = /^[1-9][0-9]{0,15}$/.test(deliveryId) ? await webhooks.delivery(game.game_id, deliveryId) : null
      const delivery = before !== null && before.webhook_id === webhook.webhook_id ? await webhooks.redeliver(game.game_id, webhook.webhook_id, deliveryId, Date.now()) : null
      if (delivery === 'pending') fail('invalid_param', 'That delivery is pending already: it is being tried.')
      const after = publicDelivery(delivery ?? fail('not_found', 'No such delivery for this webhook.'))
      const summary = (one: PublicDelivery) => ({ status: one.status, attempts: one.attempts, last_status: one.last_status, last_error: one.last_error })
      await audit({ action: 'delivery.redeliver', game_id: game.game_id, target: deliveryId, before: summary(publicDelivery(before as StoredDelivery)), after: summary(after) })
      return after
    },

    /** The newest events of the game's outbox (written while it has webhooks), newest first, and how many it could not take ever (it was full). */
    async events (gameId: string, input?: unknown): Promise<{ game_id: string, items: GameEvent[], dropped: number }> {
      const query = readInput(schemas.events, input)
      const game = await existingGame(gameId)
      const { items, dropped } = await events.recent(game.game_id, (query.offset ?? 0) + (query.limit ?? 50))
      return { game_id: game.game_id, items: items.slice(query.offset ?? 0), dropped }
    }
  }
}
