// The submit path's budgets (docs/decisions/0068-the-submit-paths-budgets.md, bench/NOTES.md):
// what one request may cost Redis, the one core that bounds one hot game.
// Every later change on these paths is measured against them; the bench's
// summary (bench/RESULTS.md, bench/RUNS.md) prints a PASS or FAIL line for
// each it measured, never a timed test. "µs" is Redis CPU per request (INFO
// cpu), "commands" every command Redis ran for it, scripts' own included.
export const BUDGETS = {
  /** A signed submit on a plain game (no periods, webhooks, review rules or runs). */
  plainSubmit: { us: 20, commands: 8 },
  /** What each current period board (daily, weekly, monthly) may add to a submit. */
  perPeriodBoard: { us: 5 },
  /** What a game with webhooks may add to a submit (its outbox written in the same call). */
  webhooks: { us: 15 },
  /** What a run may add to a submit (bench:runs). */
  run: { us: 5, commands: 3 },
  /** top?limit=20 on a board that has not changed since it was read, on average under load. */
  unchangedTop20: { us: 3 }
}

/** A budget line: PASS or FAIL, the figure, the budget. */
export function budgetLine (within, text) {
  return `${within ? 'PASS' : 'FAIL'} ${text}`
}
