import { useState } from 'preact/hooks'
import { api, gamePath, withQuery } from '../api.js'
import { Confirm, Field, More, Notice, Problem, StackedTable, TableBox, WriteButton, formatSeconds, formatTime, usePaged, useWrite } from '../ui.js'
import type { GameWithStats } from '../../../src/rules/games.js'
import type { RatingItem } from '../../../src/store/ratings.js'

const stars = (value: number): string => `${value / 2} ★`

/**
 * A game's ratings (docs/ratings.md#operators): who rated, how many stars,
 * their play when they rated and now, when; newest first, filtered by stars
 * or by the raters' play (0: those who never played); a rating removed,
 * asked first (audited, every figure follows).
 */
export function RatingsTab ({ game, onChanged }: { game: GameWithStats, onChanged: () => void }) {
  const [filter, setFilter] = useState<{ stars: string, maxPlay: string }>({ stars: '', maxPlay: '' })
  const [typed, setTyped] = useState(filter)
  const paged = usePaged<RatingItem>(cursor => withQuery(gamePath(game.game_id, '/ratings'), {
    stars: filter.stars === '' ? undefined : filter.stars,
    max_playtime_seconds: filter.maxPlay === '' ? undefined : filter.maxPlay,
    cursor: cursor ?? undefined
  }), [game.game_id, filter.stars, filter.maxPlay])
  const [removing, setRemoving] = useState<string | null>(null)
  const write = useWrite()
  async function remove (username: string): Promise<void> {
    if (await write.run(async () => await api('DELETE', gamePath(game.game_id, `/ratings/${encodeURIComponent(username)}`)), `${username}'s rating is removed.`)) {
      paged.reload()
      onChanged()
    }
    setRemoving(null)
  }
  const full = game.rating_full_weight_seconds
  return (
    <section class='card' aria-labelledby='ratings-title'>
      <h2 id='ratings-title'>Ratings</h2>
      <p class='muted'>
        Each rating weighs by its rater's play in the game: none without play, fully from {formatSeconds(full)}.
        {game.rating_count === 0 ? ' Nobody has rated the game yet.' : ` ${game.rating_count} rating${game.rating_count === 1 ? '' : 's'}, ${(game.rating_avg / 2).toFixed(2)} stars on average.`}
      </p>
      <form class='form-grid' id='ratings-filter' onSubmit={event => { event.preventDefault(); setFilter(typed) }}>
        <Field id='ratings-stars' label='Stars' hint='Only ratings of this many half stars (1 to 10); empty: all.'>
          <select id='ratings-stars' value={typed.stars} onChange={event => { setTyped({ ...typed, stars: event.currentTarget.value }) }} aria-describedby='ratings-stars-hint'>
            <option value=''>All</option>
            {[10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map(value => <option key={value} value={String(value)}>{stars(value)}</option>)}
          </select>
        </Field>
        <Field id='ratings-max-play' label='Play at most (seconds)' hint='Only raters with at most this much play now: 0 lists those who never played; empty: all.'>
          <input id='ratings-max-play' type='number' min={0} step={1} inputMode='numeric' value={typed.maxPlay} onInput={event => { setTyped({ ...typed, maxPlay: event.currentTarget.value }) }} aria-describedby='ratings-max-play-hint' />
        </Field>
        <div class='actions wide'><button type='submit' class='button secondary'>Show</button></div>
      </form>
      <Problem text={paged.problem ?? write.problem} />
      <Notice text={write.notice} />
      {paged.first !== undefined && paged.items.length === 0 && <p id='ratings-empty'>No rating matches.</p>}
      {paged.items.length > 0 && (
        <TableBox label='Ratings'>
          <StackedTable id='ratings'>
            <thead><tr><th scope='col'>Rater</th><th scope='col' class='number'>Stars</th><th scope='col' class='number'>Play when rated</th><th scope='col' class='number'>Play now</th><th scope='col' class='number'>Weight</th><th scope='col'>When</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {paged.items.map(item => (
                <tr key={item.username}>
                  <th scope='row'>{item.username}</th>
                  <td class='number' data-label='Stars'>{stars(item.stars)}</td>
                  <td class='number' data-label='Play when rated'>{item.play_at_rating_seconds === null ? '—' : formatSeconds(item.play_at_rating_seconds)}</td>
                  <td class='number' data-label='Play now'>{formatSeconds(item.playtime_seconds)}</td>
                  <td class='number' data-label='Weight'>{`${Math.round(Math.min(item.playtime_seconds, full) / full * 100)} %`}</td>
                  <td data-label='When'>{item.rated_at === null ? '—' : formatTime(item.rated_at)}</td>
                  <td class='row-actions'>
                    <WriteButton kind='danger' busy={write.busy} label={`Remove ${item.username}'s rating`} onClick={() => { setRemoving(item.username) }}>Remove</WriteButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        </TableBox>
      )}
      <More paged={paged} />
      <Confirm open={removing !== null} title={`Remove ${removing ?? ''}'s rating?`} confirm='Remove the rating' busy={write.busy} onCancel={() => { setRemoving(null) }} onConfirm={() => { void remove(removing!) }}>
        <p>The rating leaves every figure of the game at once (its average, its weighted score, the games list). The rater may rate again. The removal is in the audit log.</p>
      </Confirm>
    </section>
  )
}
