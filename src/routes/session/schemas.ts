import { Type } from '@sinclair/typebox'
import { IntegerText, Nullable, SESSION, Text, envelope } from '../schemas.js'

/** The route schemas of ratings and play time (/api/rate, /api/playtime), session mode. */

/** What the rate routes answer. */
const Rating = Type.Object({
  avg: Type.Number({ description: 'average stars in half-star units (1..10), 2 decimals, 0 when none' }),
  count: Type.Integer(),
  mine: Nullable(Type.Integer({ minimum: 1, maximum: 10, description: "the caller's stars, null when none" })),
  weighted: Nullable(Type.Number({ description: "the weighted score in half-star units, 2 decimals: each rating weighs by its rater's verified play in the game, pulled toward the platform's mean (docs/ratings.md); null while nobody rated" })),
  distribution: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 10, maxItems: 10, description: 'how many ratings at each of 1..10 half stars' })
})

export const sessionSchemas = {
  rateRead: envelope(Rating, [...SESSION], "The logged-in user's rating and the game's average (session)", {
    tags: ['session'],
    querystring: Type.Object({ game_id: Text('game identifier') })
  }),
  rate: envelope(Rating, [...SESSION, 'invalid_stars', 'play_required'], "Set (POST stars) or remove (DELETE, or POST _method=DELETE) the logged-in user's rating (session)", {
    tags: ['session'],
    querystring: Type.Object({ game_id: Text('game identifier') }),
    body: Type.Object({ stars: Type.Optional(IntegerText('1..10, half-star units')), _method: Type.Optional(Type.Literal('DELETE')) })
  }),
  playtime: envelope(Type.Object({
    total_playtime_seconds: Type.Integer({ description: "the game's total over all players" }),
    user_playtime_seconds: Type.Integer({ description: "the caller's total for this game" }),
    credited_seconds: Type.Integer({ description: 'what this report added' }),
    run_verified_seconds: Type.Optional(Type.Integer({ description: "with run_id: the run's verified play so far" }))
  }), [...SESSION, 'invalid_seconds', 'invalid_run'], 'Report play time (session)', {
    tags: ['session'],
    body: Type.Object({ game_id: Text('game identifier'), seconds: IntegerText('1..300'), run_id: Type.Optional(Text('the run being played: its verified play grows too')) })
  })
}
