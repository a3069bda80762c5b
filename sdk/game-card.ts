/*
 * What a game's card says (the front page and <ranking-games>), from
 * GET /api/games's figures: its stars out of 5, its play time, its players.
 * No dependency: Intl writes the numbers in the viewer's locale.
 */

/** A game as GET /api/games lists it. */
export interface GameListItem {
  game_id: string
  name: string
  play_url: string | null
  weighted: number | null
  avg: number
  ratings: number
  distribution: number[]
  playtime_seconds: number
  recent_playtime_seconds: number
  players: number
  created_at: string
}

/** The sorts of GET /api/games, each with the heading a list of it has. */
export const GAME_LIST_HEADINGS = { top_rated: 'Top rated', most_played: 'Most played this week', players: 'Most players', new: 'New games' } as const

function number (value: number, locale: string | undefined, digits = 0): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value)
}

/** The weighted score (half stars, 1..10) in stars out of 5, one decimal, in `locale`: "4.3"; null for a game nobody rated. */
export function starsText (weighted: number | null, locale?: string): string | null {
  return weighted === null ? null : number(Math.round(weighted * 5) / 10, locale, 1)
}

/** A play time, rounded to what a reader takes in: "under a minute", "45 min", "3.4 h", "1,250 h". */
export function playtimeText (seconds: number, locale?: string): string {
  if (seconds < 60) return 'under a minute'
  if (seconds < 3600) return `${number(Math.floor(seconds / 60), locale)} min`
  const hours = seconds / 3600
  return `${number(hours, locale, hours < 10 ? 1 : 0)} h`
}

/** A card's play: "3.4 h played", or this week's ("45 min played this week"); "not played yet" and "not played this week" for none. */
export function playedText (seconds: number, thisWeek: boolean, locale?: string): string {
  if (seconds === 0) return thisWeek ? 'not played this week' : 'not played yet'
  return `${playtimeText(seconds, locale)} played${thisWeek ? ' this week' : ''}`
}

/** "1 player", "1,204 players". */
export function countText (count: number, one: string, many: string, locale?: string): string {
  return `${number(count, locale)} ${count === 1 ? one : many}`
}

/** The card's rating line as a screen reader should hear it: "Rated 4.3 out of 5 from 12 ratings", or "Not rated yet". */
export function ratingLabel (item: Pick<GameListItem, 'weighted' | 'ratings'>, locale?: string): string {
  const stars = starsText(item.weighted, locale)
  return stars === null ? 'Not rated yet' : `Rated ${stars} out of 5 from ${countText(item.ratings, 'rating', 'ratings', locale)}`
}
