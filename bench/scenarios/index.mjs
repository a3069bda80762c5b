// The scenarios, in the order they run in each pass. A scenario is an object:
//   name            its row in the tables
//   makeFeed(ctx, poolSize)
//                   a fresh request feed for one autocannon run, sized for
//                   poolSize requests where it pre-builds them:
//                   { request, commit?, feed? }. ctx: { board, key } of the
//                   board it runs on (per-board scenarios), gameId, cookies
//                   (a session per user) and smoke. commit() moves the board
//                   mirror forward after the run; feed ({ sent, poolSize })
//                   tells whether the pool wrapped.
//   countsImproved  report the share of answers with "improved":true
//   targets         { p99Flat }: held to the p99 target of the report
// Seeding is shared: every scenario runs on the boards, users and sessions of
// lib/seed.mjs (versusMinimal also on the minimal service's own key and board,
// lib/minimal.mjs). Every response of every scenario must be 2xx with "ok":true.
import { floor } from './floor.mjs'
import { me } from './me.mjs'
import { playtime } from './playtime.mjs'
import { rateGet } from './rate-get.mjs'
import { submitSelf } from './submit-self.mjs'
import { submit, submitAchievements, submitEvents, submitNamed, submitPeriods, submitTwoBoards } from './submit.mjs'
import { gamejoltScoresAdd } from './gamejolt.mjs'
import { top100, top20 } from './top.mjs'

/** On the floor server, at the start and at the end of each pass. */
export { floor }

/** On each board, in the order of --boards. */
export const perBoard = [submit, top20, top100, me, submitSelf]

/** They do not touch the board: once per pass, on the smallest board's game. */
export const perPass = [playtime, rateGet]

/**
 * Held to the minimal service (bench/minimal.mjs): each runs on the minimal
 * service, then on the service, in alternating rounds on the smallest board.
 */
export const versusMinimal = [submit, top20]

/**
 * Run right after submit in each of those rounds: on a game with all three
 * periods, and on a game with a webhook for every event (their ratios to
 * submit are reported).
 */
export { submitEvents, submitPeriods }

/** Also after submit in those rounds: a named board, two boards in one call, a game with achievements, Game Jolt's scores/add. */
export const submitBoardRows = [submitNamed, submitTwoBoards, submitAchievements, gamejoltScoresAdd]

export { gamejoltScoresAdd }

/** One hot game: the service and the minimal service at increasing WORKERS (bench/run.mjs). */
export { submit }

/** The scaling rows (one Redis, a cluster; one or two instances), on the smallest board. */
export const scaling = [submit, top20, playtime]
