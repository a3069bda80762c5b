import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApps, createGame, dataOf, errorOf, me, post, submitFields, top, type Fields, type TestGame } from '../helpers/app.js'

/*
 * A random-operation model check: a seeded sequence of submits, reads,
 * hides, user hides, deletions and replays goes to two instances (at
 * random) of the service sharing one Redis (one cluster under
 * TEST_REDIS=cluster), and every answer is compared with a model of the
 * ranking rule kept here, and of the deletion rule
 * (docs/interface.md#replays-and-deleted-entries): a request signed before
 * a deletion, or accepted before it, is expired_ts for good.
 * Scores are all different, so the order is the best score alone (ties by
 * time and name have tests of their own in rank-order.test.ts).
 */

const SEED = Number(process.env.MODEL_SEED ?? 20261123)
const OPERATIONS = 400
const NAMES = ['ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kai', 'lu', 'mo', 'ned', 'oz', 'pia', 'quin', 'rae', 'sol', 'tam']

/** mulberry32: small, seedable, good enough to pick operations. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

interface Board {
  game: TestGame
  best: Map<string, number>
  hidden: Set<string>
  /** The first whole second after each player's latest deletion: a request signed before it is refused. */
  signFrom: Map<string, number>
  /** Every request accepted, with the player's deletions counted when it was: a replay after one more is refused. */
  accepted: Array<{ fields: Fields, name: string, deletions: number }>
  deletions: Map<string, number>
}

t.test(`random operations through two instances match the model (seed ${SEED})`, { timeout: 60_000 }, async t => {
  const { apps } = await buildTestApps(t, 2)
  const rng = random(SEED)
  const pick = <T>(items: T[]): T => items[Math.floor(rng() * items.length)] as T
  const instance = (): FastifyInstance => pick(apps)
  const boards: Board[] = []
  for (let i = 0; i < 2; i++) boards.push({ game: await createGame(apps[0] as FastifyInstance), best: new Map(), hidden: new Set(), signFrom: new Map(), accepted: [], deletions: new Map() })
  for (const name of NAMES) dataOf(await admin(apps[0] as FastifyInstance, 'POST', '/admin/users', { username: name }))
  const hiddenUsers = new Set<string>()
  const usedScores = new Set<number>()

  const visible = (board: Board, name: string): boolean => board.best.has(name) && !board.hidden.has(name) && !hiddenUsers.has(name)
  const ranking = (board: Board): string[] => [...board.best.keys()].filter(name => visible(board, name)).sort((a, b) => (board.best.get(b) as number) - (board.best.get(a) as number))
  const rankOf = (board: Board, name: string): number | null => visible(board, name) ? ranking(board).indexOf(name) + 1 : null

  let mismatches = 0
  const counts: Record<string, number> = {}
  for (let step = 0; step < OPERATIONS && mismatches === 0; step++) {
    const board = pick(boards)
    const roll = rng()
    const op = roll < 0.4 ? 'submit' : roll < 0.5 ? 'replay' : roll < 0.6 ? 'me' : roll < 0.72 ? 'top' : roll < 0.82 ? 'hide' : roll < 0.92 ? 'hideUser' : 'delete'
    counts[op] = (counts[op] ?? 0) + 1
    const expectSame = (actual: unknown, expected: unknown, what: string): void => {
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        mismatches++
        t.same(actual, expected, `step ${step}: ${what}`)
      }
    }
    if (op === 'submit') {
      const name = pick(NAMES)
      let score = Math.floor(rng() * 2_000_001) - 1_000_000
      while (usedScores.has(score)) score++
      usedScores.add(score)
      const now = Math.floor(Date.now() / 1000)
      const signFrom = board.signFrom.get(name)
      if (signFrom !== undefined && rng() < 0.3) {
        // Signed before the player's latest deletion: refused, nothing changes.
        const answer = await post(instance(), '/api/rank?action=submit', submitFields(board.game, { player: name, score, ts: signFrom - 2 - Math.floor(rng() * 100) }))
        expectSame(errorOf(answer), 'expired_ts', `submit ${name} ${score} signed before its deletion`)
        continue
      }
      const fields = submitFields(board.game, { player: name, score, ts: Math.max(now, signFrom ?? now) })
      const before = board.best.get(name)
      const improved = before === undefined || score > before
      if (improved) board.best.set(name, score)
      board.accepted.push({ fields, name, deletions: board.deletions.get(name) ?? 0 })
      expectSame(dataOf(await post(instance(), '/api/rank?action=submit', fields)),
        { score, improved, best_score: board.best.get(name), rank: rankOf(board, name) }, `submit ${name} ${score}`)
    } else if (op === 'replay') {
      if (board.accepted.length === 0) continue
      const { fields, name, deletions } = pick(board.accepted)
      const answer = await post(instance(), '/api/rank?action=submit', fields)
      if ((board.deletions.get(name) ?? 0) > deletions) {
        expectSame(errorOf(answer), 'expired_ts', `replay of ${name} ${fields.score as string} accepted before a deletion`)
      } else {
        expectSame(dataOf(answer), { score: Number(fields.score), improved: false, best_score: board.best.get(name), rank: rankOf(board, name) }, `replay of ${name} ${fields.score as string}`)
      }
    } else if (op === 'me') {
      const name = pick(NAMES)
      expectSame(dataOf(await me(instance(), board.game, name)), { player_name: name, best_score: board.best.get(name) ?? null, rank: rankOf(board, name) }, `me ${name}`)
    } else if (op === 'top') {
      const offset = Math.floor(rng() * 4)
      const limit = 1 + Math.floor(rng() * 6)
      const order = ranking(board)
      const page = dataOf(await top(instance(), board.game, { offset: String(offset), limit: String(limit) }))
      expectSame({ total: page.total, items: page.items.map((item: any) => [item.rank, item.player_name, item.score]) },
        { total: order.length, items: order.slice(offset, offset + limit).map((name, i) => [offset + i + 1, name, board.best.get(name)]) }, `top offset ${offset} limit ${limit}`)
    } else if (op === 'hide') {
      const stored = [...board.best.keys()]
      if (stored.length === 0) continue
      const name = pick(stored)
      const hidden = !board.hidden.has(name)
      if (hidden) board.hidden.add(name)
      else board.hidden.delete(name)
      expectSame(dataOf(await admin(instance(), 'PATCH', `/admin/games/${board.game.gameId}/players/${name}`, { hidden })).rank, rankOf(board, name), `hide ${name} ${String(hidden)}`)
    } else if (op === 'hideUser') {
      // A user hidden is hidden on every board: the walk goes game by game, across nodes on a cluster.
      const name = pick(NAMES)
      const hidden = !hiddenUsers.has(name)
      if (hidden) hiddenUsers.add(name)
      else hiddenUsers.delete(name)
      expectSame(dataOf(await admin(instance(), 'PATCH', `/admin/users/${name}`, { hidden })).hidden, hidden, `hide user ${name} ${String(hidden)}`)
    } else {
      const stored = [...board.best.keys()]
      if (stored.length === 0) continue
      const name = pick(stored)
      board.best.delete(name)
      board.hidden.delete(name)
      board.deletions.set(name, (board.deletions.get(name) ?? 0) + 1)
      expectSame(dataOf(await admin(instance(), 'DELETE', `/admin/games/${board.game.gameId}/players/${name}`)), {}, `delete ${name}`)
      // Done by now: a request signed from the next whole second is after it.
      board.signFrom.set(name, Math.floor(Date.now() / 1000) + 1)
    }
  }
  t.equal(mismatches, 0, `every answer matched the model (${Object.entries(counts).map(([op, count]) => `${count} ${op}`).join(', ')})`)
  // Finally, both boards read in full through each instance.
  for (const board of boards) {
    for (const app of apps) {
      const page = dataOf(await top(app, board.game, { limit: '100' }))
      t.same(page.items.map((item: any) => item.player_name), ranking(board), `the whole board of ${board.game.gameId}`)
    }
  }
})
