/**
 * Calendar periods of a board: a day, an ISO week (Monday first)
 * or a month, in the game's time zone. Pure functions of an instant, so the
 * clock is the caller's (tests pass any instant; nothing waits for midnight).
 *
 * Instants from the year 1000 to 9999 only (periodAt throws a RangeError
 * outside), so an id always has a four-digit year.
 *
 * A period is named by its id (`2026-11-23`, `2026-W48`, `2026-11`) and
 * bounded by the instants its first and next local midnights fall on: a
 * day across a daylight-saving change lasts 23 or 25 hours, and a zone
 * whose clocks skip midnight starts its day at the first instant that has
 * the new date.
 */

export const PERIOD_KINDS = ['daily', 'weekly', 'monthly'] as const
export type PeriodKind = typeof PERIOD_KINDS[number]

export interface Period {
  kind: PeriodKind
  /** `YYYY-MM-DD`, `YYYY-Www` or `YYYY-MM`. */
  id: string
  /** The first instant of the period (ms since the epoch). */
  startsAt: number
  /** The first instant of the next period. */
  resetsAt: number
}

/** A calendar date, months 1..12. */
interface LocalDate { year: number, month: number, day: number }

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The formatter that reads an instant's calendar date in `timeZone` (one per zone, kept). */
function dateFormatter (timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/**
 * The canonical name of an IANA zone this runtime knows (`utc` gives `UTC`,
 * `america/new_york` gives `America/New_York`), or undefined. Store the
 * canonical name: only those are cached.
 */
export function canonicalTimeZone (timeZone: unknown): string | undefined {
  if (typeof timeZone !== 'string' || timeZone === '' || timeZone.length > 64) return undefined
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/** Whether `timeZone` is an IANA zone this runtime knows, spelt canonically. */
export function isTimeZone (timeZone: unknown): boolean {
  return timeZone !== undefined && canonicalTimeZone(timeZone) === timeZone
}

/** The instants periods are worked out for: the years 1000 to 9999, so every id has a four-digit year. */
const FIRST_INSTANT = Date.UTC(1000, 0, 2) // a day in, so no zone's date is before the year 1000
const LAST_INSTANT = Date.UTC(9999, 11, 30)

/** How many past periods a game may keep at most. */
export const MAX_KEEP_PERIODS = 1000

function checkInstant (instant: number): void {
  if (!Number.isFinite(instant) || instant < FIRST_INSTANT || instant > LAST_INSTANT) throw new RangeError(`no period is worked out for the instant ${instant}`)
}

/** The wall-clock reading of an instant in a zone, as if that reading were UTC (ms). */
function wallClock (instant: number, timeZone: string): number {
  const parts: Record<string, number> = {}
  for (const part of dateFormatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const milliseconds = ((instant % 1000) + 1000) % 1000 // the formatter reads whole seconds
  return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second) + milliseconds
}

function localDateOf (instant: number, timeZone: string): LocalDate {
  const wall = new Date(wallClock(instant, timeZone))
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

const dayNumber = (date: LocalDate): number => Date.UTC(date.year, date.month - 1, date.day) / 86_400_000

function dateOfDayNumber (days: number): LocalDate {
  const date = new Date(days * 86_400_000)
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
}

/**
 * The first instant whose local date in `timeZone` is `date` or later: local
 * midnight, or the end of a gap that skips it.
 */
function startOfLocalDate (date: LocalDate, timeZone: string): number {
  const target = Date.UTC(date.year, date.month - 1, date.day)
  // Two passes of "wall clock minus offset" land on midnight wherever it exists.
  let instant = target - (wallClock(target, timeZone) - target)
  instant = target - (wallClock(instant, timeZone) - instant)
  const reached = (at: number): boolean => dayNumber(localDateOf(at, timeZone)) >= target / 86_400_000
  if (reached(instant) && !reached(instant - 1)) return instant
  // Midnight is skipped (or the passes missed by a change): search the few hours around it.
  let low = target - 36 * 3_600_000
  let high = target + 36 * 3_600_000
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    if (reached(middle)) high = middle
    else low = middle
  }
  return high
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0')

/** The ISO week of a date: its year (that of its Thursday), its number, and its Monday. */
function isoWeekOf (date: LocalDate): { year: number, week: number, monday: number } {
  const days = dayNumber(date)
  const weekday = (new Date(days * 86_400_000).getUTCDay() + 6) % 7 // Monday 0
  const thursday = dateOfDayNumber(days - weekday + 3)
  const firstOfYear = dayNumber({ year: thursday.year, month: 1, day: 1 })
  return { year: thursday.year, week: Math.floor((days - weekday + 3 - firstOfYear) / 7) + 1, monday: days - weekday }
}

/** The first local date of the period of `kind` that holds `date`, its id, and the first date of the next one. */
function calendarPeriod (kind: PeriodKind, date: LocalDate): { id: string, first: LocalDate, next: LocalDate } {
  if (kind === 'daily') {
    return { id: `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}`, first: date, next: dateOfDayNumber(dayNumber(date) + 1) }
  }
  if (kind === 'weekly') {
    const { year, week, monday } = isoWeekOf(date)
    return { id: `${pad(year, 4)}-W${pad(week)}`, first: dateOfDayNumber(monday), next: dateOfDayNumber(monday + 7) }
  }
  const next = date.month === 12 ? { year: date.year + 1, month: 1, day: 1 } : { year: date.year, month: date.month + 1, day: 1 }
  return { id: `${pad(date.year, 4)}-${pad(date.month)}`, first: { ...date, day: 1 }, next }
}

function periodOfDate (kind: PeriodKind, date: LocalDate, timeZone: string): Period {
  const { id, first, next } = calendarPeriod(kind, date)
  return { kind, id, startsAt: startOfLocalDate(first, timeZone), resetsAt: startOfLocalDate(next, timeZone) }
}

/** The period of `kind` that holds `instant` in `timeZone`. */
export function periodAt (kind: PeriodKind, timeZone: string, instant: number): Period {
  checkInstant(instant)
  return periodOfDate(kind, localDateOf(instant, timeZone), timeZone)
}

/** The period just before `period`. */
export function previousPeriod (period: Period, timeZone: string): Period {
  return periodAt(period.kind, timeZone, period.startsAt - 1)
}

/**
 * The current period and up to `keep` past ones, newest first: the periods a
 * game keeps readable.
 */
export function keptPeriods (kind: PeriodKind, timeZone: string, instant: number, keep: number): Period[] {
  if (!Number.isInteger(keep) || keep < 0 || keep > MAX_KEEP_PERIODS) throw new RangeError(`keep must be an integer from 0 to ${MAX_KEEP_PERIODS}`)
  const periods = [periodAt(kind, timeZone, instant)]
  while (periods.length <= keep) periods.push(previousPeriod(periods[periods.length - 1]!, timeZone))
  return periods
}

const ID_FORMS: Record<PeriodKind, RegExp> = {
  daily: /^([1-9]\d{3})-(\d{2})-(\d{2})$/,
  weekly: /^([1-9]\d{3})-W(\d{2})$/,
  monthly: /^([1-9]\d{3})-(\d{2})$/
}

/**
 * The period a well-formed id names, or undefined when the text is not one
 * (a day that is not on the calendar, week 54, month 13).
 */
export function periodOfId (kind: PeriodKind, id: string, timeZone: string): Period | undefined {
  const match = ID_FORMS[kind].exec(id)
  if (match === null) return undefined
  const year = Number(match[1])
  const second = Number(match[2])
  let date: LocalDate
  if (kind === 'weekly') {
    // The Monday of week 1 is the Monday of the week that holds January 4th.
    const week1 = isoWeekOf({ year, month: 1, day: 4 }).monday
    date = dateOfDayNumber(week1 + (second - 1) * 7)
    if (second < 1 || isoWeekOf(date).year !== year) return undefined
  } else {
    date = { year, month: second, day: kind === 'daily' ? Number(match[3]) : 1 }
    const roundTrip = dateOfDayNumber(dayNumber(date))
    if (date.month < 1 || date.month > 12 || roundTrip.month !== date.month || roundTrip.day !== date.day) return undefined
  }
  const period = periodOfDate(kind, date, timeZone)
  // A day a zone skipped (Pacific/Apia, 2011-12-30) has no instant: it is no period.
  return period.id === id && period.resetsAt > period.startsAt && period.startsAt >= FIRST_INSTANT && period.resetsAt <= LAST_INSTANT + 86_400_000 * 40 ? period : undefined
}

/**
 * When a board began keeping each period kind it keeps (ms). A kind kept
 * from before this was recorded has none: all its kept periods may hold
 * entries, as before.
 */
export type PeriodsSince = Partial<Record<PeriodKind, number>>

/**
 * A board's periods_since after its periods change to `periods` at `now`:
 * a kind it kept already keeps its instant, a new one begins now, a dropped
 * one is forgotten (taken up again, it begins anew).
 */
export function periodsSinceAfter (before: { periods: readonly PeriodKind[], periods_since: PeriodsSince } | undefined, periods: readonly PeriodKind[], now: number): PeriodsSince {
  const since: PeriodsSince = {}
  for (const kind of periods) {
    const kept = before?.periods.includes(kind) === true ? before.periods_since[kind] : now
    if (kept !== undefined) since[kind] = kept
  }
  return since
}

/**
 * Whether a period may hold entries of a board that keeps its kind since
 * `since`: it ended after the board began keeping the kind. A period that
 * ended before has no board of this kind (nothing was kept then): it is not
 * listed, and it closes without a period.closed.
 */
export function keptDuring (period: Period, since: PeriodsSince): boolean {
  const began = since[period.kind]
  return began === undefined || period.resetsAt > began
}

/** periods_since as a game's record stores it: `daily:1764633600000,weekly:…`. */
export function storedPeriodsSince (since: PeriodsSince): string {
  return PERIOD_KINDS.filter(kind => since[kind] !== undefined).map(kind => `${kind}:${since[kind] as number}`).join(',')
}

/** A stored periods_since, for the kinds the board keeps; anything else (written by hand) is left out. */
export function periodsSinceOf (stored: unknown, periods: readonly PeriodKind[]): PeriodsSince {
  const since: PeriodsSince = {}
  const pairs = typeof stored === 'string' ? stored.split(',').map(pair => pair.split(':')) : typeof stored === 'object' && stored !== null ? Object.entries(stored) : []
  for (const [kind, value] of pairs) {
    const instant = Number(value)
    if (periods.includes(kind as PeriodKind) && Number.isSafeInteger(instant) && instant > 0) since[kind as PeriodKind] = instant
  }
  return since
}
