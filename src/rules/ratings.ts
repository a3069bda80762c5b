/**
 * The weighted score of a game (docs/ratings.md): a Bayesian mean of its
 * ratings, each weighing by its rater's verified play in the game (none for
 * no play, fully from the game's rating_full_weight_seconds), pulled toward
 * a mean by a prior of `weight` full-weight ratings:
 *
 *   weighted = (weight * mean + sum of w * stars) / (weight + sum of w)
 *
 * with w = min(play, full) / full for each rating. A few ratings, or many
 * without play, move it little from the mean.
 */
export interface RatingPrior {
  /** How many full-weight ratings the prior counts as (RATING_PRIOR_WEIGHT). */
  weight: number
  /** The mean it pulls toward: the platform's weighted mean, or an operator's value (RATING_PRIOR_MEAN). */
  mean: number | 'platform'
}
export const DEFAULT_PRIOR = { weight: 5, mean: 'platform' } as const satisfies RatingPrior
/** The platform's mean while no rating on it weighs anything: the middle of 1..10. */
export const NEUTRAL_MEAN = 5.5

/** A game's rating figures as the scripts keep them (store/lua/includes/rating-weights.lua). */
export interface RatingFigures {
  sum: number
  count: number
  /** Every rating's counted play (seconds, each up to the full weight). */
  wsec: number
  /** Each rating's counted play times its stars. */
  wsum: number
  /** How many ratings at each of 1..10 half stars. */
  distribution: number[]
}

const round2 = (value: number): number => Math.round(value * 100) / 100

/** The average of `count` ratings summing to `sum`, 2 decimals; 0 when there are none (v1's avg). */
export function averageRating (sum: number, count: number): number {
  return count === 0 ? 0 : Math.round((sum * 100) / count) / 100
}

/** The weighted score in half-star units, 2 decimals, toward `mean` (the platform's now, or the operator's); null while the game has no rating. */
export function weightedRating (figures: Pick<RatingFigures, 'count' | 'wsec' | 'wsum'>, fullWeightSeconds: number, prior: { weight: number, mean: number }): number | null {
  if (figures.count === 0) return null
  const weight = figures.wsec / fullWeightSeconds
  // No prior and no play: nothing weighs, so the score is the mean it would pull toward.
  if (prior.weight + weight === 0) return round2(prior.mean)
  return round2((prior.weight * prior.mean + figures.wsum / fullWeightSeconds) / (prior.weight + weight))
}

/** The prior now: the operator's mean, or the platform's as `platformMean` knows it. */
export function priorNow (prior: RatingPrior, platformMean: () => number): () => { weight: number, mean: number } {
  return () => ({ weight: prior.weight, mean: prior.mean === 'platform' ? platformMean() : prior.mean })
}
