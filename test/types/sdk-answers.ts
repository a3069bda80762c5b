import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox'
import type * as Sdk from '../../sdk/answers.js'
import type { PlatformRun, PlatformSubmitted, PlatformUnlocked } from '../../sdk/platform.js'
import type { ErrorCode } from '../../src/errors.js'
import type { Around, Board, BoardFields, BoardItem, PERIOD, Season, Standing } from '../../src/routes/board-schemas.js'
import type {
  AchievementList, BoardSubmitted, Me, PeriodStanding, Periods, PlayerAchievement, RunReported, RunStarted, Seasons, SubmitResult, Submitted, SubmittedSelf, Unlocked
} from '../../src/routes/rank/answers.js'

/*
 * The SDK's answer types (sdk/answers.ts, and the kit's in sdk/platform.ts)
 * and the route schemas (src/routes/) describe the same JSON answers twice:
 * the SDK is published on its own, with no dependencies, so its types cannot
 * be the schemas' Static<>. Instead `npm run typecheck` compiles this file,
 * which fails, naming the answer, as soon as a schema and its SDK type
 * differ. Nothing here runs. When it fails, docs/interface.md and the route
 * that builds the answer say which side is right.
 */

/** Exactly the same type: not only assignable both ways (any, optional or not, readonly count). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
/** One form for the same shape however it is written (an interface, an intersection, TypeBox's mapped types), deeply; optional and readonly stay. */
type Plain<T> = T extends object ? { [K in keyof T]: Plain<T[K]> } : T
/** true, or a sentence naming the answer, which the compiler prints. */
type Same<Answer extends string, Schema, SdkType> = Equal<Plain<Schema>, Plain<SdkType>> extends true ? true : `${Answer}: the schema and the SDK type differ`
type Expect<T extends true> = T

type Data<T extends TSchema> = Static<T>
/** The answer of an object schema given as its properties (BoardFields, Standing). */
type Fields<T extends TProperties> = Static<TObject<T>>

/**
 * A board's part of a submit of several boards: the SDK narrows `error` to
 * its ErrorCode where the schema says a string. The service sets it from an
 * ApiError's code (src/routes/rank/submit.ts, submitBoards), and its codes
 * are the SDK's but network_error (checked last below), so the narrowing
 * holds; the schema is left a plain string rather than made a union of
 * every code. Everything else is compared exactly.
 */
type SdkBoardPart = Omit<Sdk.BoardSubmitted, 'error'> & { error?: string }

/** submit-self's answer for one board, what the kit's submit() resolves to: it sends one board (docs/kit.md). */
type SubmittedSelfOne = Exclude<Data<typeof SubmittedSelf>, { boards: unknown }>

export type SdkAnswersMatchTheSchemas = [
  // A board read: what it says about the board, and the board.
  Expect<Same<'Period', Data<typeof PERIOD>, Sdk.Period>>,
  Expect<Same<'BoardFields', Fields<typeof BoardFields>, Sdk.BoardFields>>,
  Expect<Same<'BoardItem', Data<typeof BoardItem>, Sdk.BoardItem>>,
  Expect<Same<'TopResult (top, players, live)', Data<typeof Board>, Sdk.TopResult>>,
  // A player's standing; the periods and seasons.
  Expect<Same<'Standing', Fields<typeof Standing>, Sdk.Standing>>,
  Expect<Same<'MeResult (me)', Data<typeof Me>, Sdk.MeResult>>,
  Expect<Same<'AroundResult (around)', Data<typeof Around>, Sdk.AroundResult>>,
  Expect<Same<'PeriodsResult (periods)', Data<typeof Periods>, Sdk.PeriodsResult>>,
  Expect<Same<'Season', Data<typeof Season>, Sdk.Season>>,
  Expect<Same<'SeasonsResult (seasons)', Data<typeof Seasons>, Sdk.SeasonsResult>>,
  // A submit, to one board or several.
  Expect<Same<'PeriodStanding', Data<typeof PeriodStanding>, Sdk.PeriodStanding>>,
  Expect<Same<'SubmitResult (submit, submit-run)', Data<typeof SubmitResult>, Sdk.SubmitResult>>,
  Expect<Same<'BoardSubmitted (a submit of several boards)', Data<typeof BoardSubmitted>, SdkBoardPart>>,
  Expect<Same<'submit', Data<typeof Submitted>, Sdk.SubmitResult | { boards: SdkBoardPart[] }>>,
  // Runs and achievements.
  Expect<Same<'RunStarted (run-start)', Data<typeof RunStarted>, Sdk.RunStarted>>,
  Expect<Same<'RunReported (run-report)', Data<typeof RunReported>, Sdk.RunReported>>,
  Expect<Same<'AchievementItem', Data<typeof PlayerAchievement>, Sdk.AchievementItem>>,
  Expect<Same<'AchievementsResult (achievements)', Data<typeof AchievementList>, Sdk.AchievementsResult>>,
  Expect<Same<'Unlocked (unlock)', Data<typeof Unlocked>, Sdk.Unlocked>>,
  // The kit for hosted games (docs/kit.md), in session mode. PlatformSubmitted has every field of the answer but periods, which the kit
  // leaves out, as docs/kit.md does: the fields it has are compared exactly, and periods is the one left out.
  Expect<Same<'PlatformRun (run-start-self)', Data<typeof RunStarted>, PlatformRun>>,
  Expect<Same<'PlatformUnlocked (unlock-self)', Data<typeof Unlocked>, PlatformUnlocked>>,
  Expect<Same<'PlatformSubmitted (submit-self)', Omit<SubmittedSelfOne, 'periods'>, PlatformSubmitted>>,
  // The failure envelope's codes: the service's, and the SDK's own network_error.
  Expect<Same<'ErrorCode', ErrorCode | 'network_error', Sdk.ErrorCode>>
]
