import { Type } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import { ICON_TYPES } from '../../rules/achievements.js'
import { Text, envelope, fileAnswer, gameParams } from '../schemas.js'
import { Board, BoardChoice } from '../board-schemas.js'

/** The route schemas of the play page and what it reads: its board, live too, achievement icons, the login and sign-up pages. */

export const playSchemas = {
  achievementIcon: fileAnswer(envelope(Type.Null(), ['invalid_game', 'not_found', 'rate_limited'], "An achievement's icon, as its image type (a hidden one's only with v, its version, which a player's list gives once it is unlocked)", {
    tags: ['platform'],
    params: Type.Object({ game_id: Type.String(), achievement_id: Type.String() }),
    querystring: Type.Object({ v: Type.Optional(Text('the icon\'s version (icon_url has it): cached for a year')) })
  }), 'The image (PNG, JPEG, GIF or WebP)', ICON_TYPES),
  playBoard: envelope(Board, ['invalid_game'], 'The top 10 shown on the play page; period or period_id pick a period board', { tags: ['platform'], params: gameParams, querystring: Type.Object(BoardChoice) }),
  playLive: envelope(Board, ['invalid_game', 'rate_limited'], 'The play page\'s board, live (Server-Sent Events): the top 10 at once, then again whenever it changes', { tags: ['platform'], params: gameParams, querystring: Type.Object(BoardChoice) }),
  gamejoltWorker: { summary: 'The Game Jolt worker (JavaScript): the play page registers it for a hosted game with Game Jolt\'s API on, and it sends the game\'s calls to Game Jolt to this service (docs/gamejolt.md#hosted-builds)', tags: ['platform'] } as FastifySchema,
  playPage: { summary: 'The play page of a hosted game (HTML)', tags: ['platform'], params: gameParams } as FastifySchema,
  playUnavailable: { summary: 'What the play page frames instead of a game that is unknown, not approved or not installed (HTML)', tags: ['platform'], params: gameParams } as FastifySchema,
  signupPage: { summary: 'The sign-up page (HTML, SIGNUP=open); after signing up it goes to `next`, a path on this site', tags: ['platform'], querystring: Type.Object({ next: Type.Optional(Type.String()) }) } as FastifySchema,
  loginPage: { summary: 'The login page (HTML); after logging in it goes to `next`, a path on this site', tags: ['platform'], querystring: Type.Object({ next: Type.Optional(Type.String()) }) } as FastifySchema
}
