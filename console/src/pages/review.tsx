import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Notice, Problem, StackedTable, TableBox, WriteButton, formatTime, shownScore, useRead, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { HeldScore as Held } from '../../../src/routes/admin/records.js'
import type { NamedBoard } from '../../../src/rules/boards.js'
import { DEFAULT_DISPLAY } from '../../../src/rules/score-format.js'

const RULES: Record<string, string> = { review_above: 'above the review line', review_below: 'below the review line', review_factor: 'far beyond the best', run_short: 'its run was too short', run_rate: 'more than its run\'s play allows' }

/** A held score's run, for the reviewer: its verified play, and when it began, was reported and scored (seconds from its start). */
function RunTimeline ({ run, submittedAt }: { run: NonNullable<Held['run']>, submittedAt: string }) {
  const began = run.started_at === null ? null : Date.parse(run.started_at)
  const since = (at: string): string => began === null ? '' : `+${Math.round((Date.parse(at) - began) / 1000)} s`
  const earlier = run.reports - run.timeline.length
  return (
    <details class='run-timeline'>
      <summary>{run.verified_seconds} s of verified play</summary>
      <ol>
        {run.started_at !== null && <li>Run began {formatTime(run.started_at)}</li>}
        {run.reports === 0 && <li>No play reported</li>}
        {earlier > 0 && <li>{earlier} earlier {earlier === 1 ? 'report' : 'reports'}</li>}
        {run.timeline.map(item => <li key={item.at}>{since(item.at)}: {item.credited_seconds} s of play</li>)}
        <li>{since(submittedAt)}: the score came</li>
      </ol>
    </details>
  )
}

/** Scores held by the game's review rules: approve or reject each in one click. */
export function ReviewTab ({ game }: { game: GameWithStats }) {
  const [status, setStatus] = useState<'pending' | 'decided'>('pending')
  const list = useRead(async () => await api<{ total: number, items: Held[] }>('GET', withQuery(gamePath(game.game_id, '/review'), { status, limit: 100 })), [game.game_id, status])
  const boards = useRead(async () => await api<{ items: NamedBoard[] }>('GET', gamePath(game.game_id, '/boards')), [game.game_id])
  /** A held score as its board shows it (its display format); a named board's in whole numbers until its settings are read. */
  const scoreOf = (held: Held): string => shownScore(held.score, held.board_id === null
    ? game
    : boards.data?.items.find(board => board.board_id === held.board_id) ?? DEFAULT_DISPLAY)
  const write = useWrite()
  const rulesSet = game.review_above !== null || game.review_below !== null || game.review_factor !== null || (game.runs !== 'off' && (game.max_score_rate !== null || game.min_run_seconds > 0) && game.implausible === 'hold')
  async function decide (held: Held, decision: 'approve' | 'reject'): Promise<void> {
    const done = decision === 'approve' ? `${held.player_name}'s ${scoreOf(held)} is approved and on the boards.` : `${held.player_name}'s ${scoreOf(held)} is rejected.`
    if (await write.run(async () => await api('POST', gamePath(game.game_id, `/review/${encodeURIComponent(held.held_id)}/${decision}`), {}), done)) list.reload()
  }
  return (
    <>
      {!rulesSet && <p class='muted'>This game holds no scores for review: set a review rule in its settings.</p>}
      <div class='toolbar' role='group' aria-label='Which held scores'>
        <button type='button' class='button secondary' aria-pressed={status === 'pending'} onClick={() => { setStatus('pending') }}>Waiting</button>
        <button type='button' class='button secondary' aria-pressed={status === 'decided'} onClick={() => { setStatus('decided') }}>Decided</button>
      </div>
      <Problem text={list.problem ?? write.problem} />
      <Notice text={write.notice} />
      {list.data !== undefined && <p class='muted'>{list.data.total} {status === 'pending' ? 'waiting for a decision' : 'decided'}.</p>}
      {list.data !== undefined && list.data.items.length > 0 && (
        // Stacked: on a phone each held score is a card, its buttons under its cells rather than pinned over them.
        <TableBox label='Held scores'>
          <StackedTable id='review-table'>
            <thead><tr><th scope='col'>Player</th><th scope='col' class='number'>Score</th><th scope='col'>Board</th><th scope='col'>Why held</th><th scope='col'>Submitted</th><th scope='col'>{status === 'pending' ? <span class='visually-hidden'>Decide</span> : 'Decision'}</th></tr></thead>
            <tbody>
              {list.data.items.map(held => (
                <tr key={held.held_id}>
                  <th scope='row'>{held.player_name}</th>
                  <td class='number' data-label='Score'>{scoreOf(held)}{held.parts > 1 && <small class='hint'> ({held.parts} scores added up)</small>}</td>
                  <td data-label='Board'>{held.board_id === null ? <span class='muted'>the game's own</span> : <code>{held.board_id}</code>}</td>
                  <td data-label='Why held'>{RULES[held.rule] ?? held.rule}{held.run !== null && <RunTimeline run={held.run} submittedAt={held.submitted_at} />}</td>
                  <td data-label='Submitted'>{formatTime(held.submitted_at)}</td>
                  <td class='row-actions' data-label={held.status === 'pending' ? undefined : 'Decision'}>
                    {held.status === 'pending'
                      ? (
                        <>
                          <WriteButton busy={write.busy} onClick={() => { void decide(held, 'approve') }} label={`Approve ${held.player_name}'s ${scoreOf(held)}`}>Approve</WriteButton>
                          <WriteButton kind='danger' busy={write.busy} onClick={() => { void decide(held, 'reject') }} label={`Reject ${held.player_name}'s ${scoreOf(held)}`}>Reject</WriteButton>
                        </>)
                      : <span>{held.status} {formatTime(held.decided_at)}{held.note === null ? '' : `: ${held.note}`}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
    </>
  )
}
