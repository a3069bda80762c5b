import t from 'tap'
import { canonicalTimeZone, isTimeZone, keptDuring, keptPeriods, periodAt, periodOfId, periodsSinceAfter, periodsSinceOf, PERIOD_KINDS, previousPeriod, storedPeriodsSince, type Period } from '../../src/rules/periods.js'

/*
 * Calendar periods (src/rules/periods.ts): days, ISO weeks and months in a
 * game's time zone, as pure functions of an instant. Every case gives the
 * instant; nothing here waits for a clock.
 */

const at = (iso: string): number => Date.parse(iso)
const iso = (ms: number): string => new Date(ms).toISOString()
const hours = (period: Period): number => (period.resetsAt - period.startsAt) / 3_600_000
const bounds = (period: Period): [string, string, string] => [period.id, iso(period.startsAt), iso(period.resetsAt)]

t.test('UTC: a day, an ISO week, a month', async t => {
  const now = at('2026-11-23T12:34:56.789Z')
  t.same(bounds(periodAt('daily', 'UTC', now)), ['2026-11-23', '2026-11-23T00:00:00.000Z', '2026-11-24T00:00:00.000Z'])
  t.same(bounds(periodAt('weekly', 'UTC', now)), ['2026-W48', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'], 'a Monday starts its week')
  t.same(bounds(periodAt('weekly', 'UTC', at('2026-11-29T23:59:59.999Z'))), ['2026-W48', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'], 'a Sunday ends it')
  t.same(bounds(periodAt('monthly', 'UTC', now)), ['2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'])
})

t.test('one millisecond before and after a reset', async t => {
  for (const kind of PERIOD_KINDS) {
    for (const zone of ['UTC', 'America/New_York', 'Pacific/Kiritimati', 'Asia/Kolkata']) {
      const period = periodAt(kind, zone, at('2026-11-23T12:00:00Z'))
      t.equal(periodAt(kind, zone, period.resetsAt - 1).id, period.id, `${kind} ${zone}: the last millisecond is still ${period.id}`)
      const next = periodAt(kind, zone, period.resetsAt)
      t.not(next.id, period.id, `${kind} ${zone}: the reset begins ${next.id}`)
      t.equal(next.startsAt, period.resetsAt, `${kind} ${zone}: no gap, no overlap`)
    }
  }
})

t.test('daylight saving in America/New_York: days of 23 and 25 hours', async t => {
  const spring = periodAt('daily', 'America/New_York', at('2026-03-08T15:00:00Z'))
  t.same(bounds(spring), ['2026-03-08', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z'])
  t.equal(hours(spring), 23)
  const autumn = periodAt('daily', 'America/New_York', at('2026-11-01T15:00:00Z'))
  t.same(bounds(autumn), ['2026-11-01', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'])
  t.equal(hours(autumn), 25)
  t.equal(hours(periodAt('weekly', 'America/New_York', at('2026-11-01T15:00:00Z'))), 7 * 24 + 1, 'the week that holds it is an hour longer')
  t.equal(periodAt('daily', 'America/New_York', at('2026-11-02T04:59:59.999Z')).id, '2026-11-01', '23:59:59.999 local, after the clocks went back')
})

t.test('ISO week 53 and the weeks across a new year', async t => {
  // 2026 begins on a Thursday, so it has 53 ISO weeks.
  t.same(bounds(periodAt('weekly', 'UTC', at('2027-01-01T12:00:00Z'))), ['2026-W53', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'])
  t.equal(periodAt('weekly', 'UTC', at('2027-01-04T00:00:00Z')).id, '2027-W01')
  t.equal(periodAt('weekly', 'UTC', at('2025-12-29T00:00:00Z')).id, '2026-W01', 'a late December day can be in week 1 of the next year')
  t.equal(periodAt('weekly', 'UTC', at('2027-12-31T00:00:00Z')).id, '2027-W52', '2027 has 52 weeks')
  t.ok(periodOfId('weekly', '2026-W53', 'UTC'))
  t.equal(periodOfId('weekly', '2027-W53', 'UTC'), undefined, 'no week 53 in 2027')
  t.equal(periodOfId('weekly', '2026-W00', 'UTC'), undefined)
})

t.test('month ends and leap days', async t => {
  t.same(bounds(periodAt('monthly', 'UTC', at('2028-02-29T23:00:00Z'))), ['2028-02', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'])
  t.same(bounds(periodAt('monthly', 'UTC', at('2026-12-31T23:59:59.999Z'))), ['2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'])
  t.ok(periodOfId('daily', '2028-02-29', 'UTC'))
  for (const id of ['2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-1-01', '26-01-01', '2026-01-01x', '']) {
    t.equal(periodOfId('daily', id, 'UTC'), undefined, `daily ${JSON.stringify(id)} is no day`)
  }
  for (const id of ['2026-13', '2026-00', '2026-1', '2026-11-01']) t.equal(periodOfId('monthly', id, 'UTC'), undefined, `monthly ${JSON.stringify(id)}`)
})

t.test('a zone far from UTC: Pacific/Kiritimati (UTC+14)', async t => {
  const day = periodAt('daily', 'Pacific/Kiritimati', at('2026-11-23T10:00:00Z'))
  t.same(bounds(day), ['2026-11-24', '2026-11-23T10:00:00.000Z', '2026-11-24T10:00:00.000Z'], 'its day begins while UTC is still at 10:00 the day before')
  t.equal(periodAt('daily', 'Pacific/Kiritimati', at('2026-11-23T09:59:59.999Z')).id, '2026-11-23')
})

t.test('a period read back from its id has the same bounds', async t => {
  for (const zone of ['UTC', 'America/New_York', 'Pacific/Kiritimati', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Tehran']) {
    for (const kind of PERIOD_KINDS) {
      for (let instant = at('2026-01-01T00:00:00Z'); instant < at('2027-01-10T00:00:00Z'); instant += 37 * 3_600_000 + 1234) {
        const period = periodAt(kind, zone, instant)
        if (!(period.startsAt <= instant && instant < period.resetsAt)) {
          t.fail(`${kind} ${zone} ${iso(instant)}: ${JSON.stringify(bounds(period))} does not hold it`)
          return
        }
        const again = periodOfId(kind, period.id, zone)
        if (again === undefined || again.startsAt !== period.startsAt || again.resetsAt !== period.resetsAt) {
          t.fail(`${kind} ${zone} ${period.id}: read back as ${JSON.stringify(again && bounds(again))}`)
          return
        }
      }
      t.pass(`${kind} in ${zone}: every instant of 2026 is inside its period, and the id gives the same bounds`)
    }
  }
})

t.test('a zone whose clocks skip midnight starts the day when the date begins', async t => {
  // Chile moves its clocks at midnight: the first instant with the new date is 01:00 local.
  for (let day = at('2026-09-01T12:00:00Z'); day < at('2026-09-15T00:00:00Z'); day += 86_400_000) {
    const period = periodAt('daily', 'America/Santiago', day)
    t.equal(periodAt('daily', 'America/Santiago', period.startsAt - 1).id, previousPeriod(period, 'America/Santiago').id, `${period.id}: the millisecond before belongs to the day before`)
    t.ok(hours(period) >= 23 && hours(period) <= 25, `${period.id} lasts ${hours(period)} hours`)
  }
})

t.test('the kept periods: the current one and `keep` past ones, back to back', async t => {
  const kept = keptPeriods('weekly', 'Europe/Berlin', at('2026-11-23T12:00:00Z'), 12)
  t.equal(kept.length, 13)
  t.equal(kept[0]!.id, '2026-W48')
  t.equal(kept[12]!.id, '2026-W36')
  for (let index = 1; index < kept.length; index++) t.equal(kept[index]!.resetsAt, kept[index - 1]!.startsAt, `${kept[index]!.id} ends where ${kept[index - 1]!.id} begins`)
  t.same(keptPeriods('daily', 'UTC', at('2026-11-23T12:00:00Z'), 0).map(period => period.id), ['2026-11-23'])
})

t.test('years 1000 to 9999 only; keep is bounded; a skipped day is no period', async t => {
  for (const id of ['0050-01-01', '0999-12-31', '0000-01-01', '10000-01-01']) t.equal(periodOfId('daily', id, 'UTC'), undefined, id)
  t.equal(periodOfId('monthly', '0099-12', 'UTC'), undefined)
  t.equal(periodOfId('weekly', '0100-W01', 'UTC'), undefined)
  t.ok(periodOfId('daily', '1000-01-02', 'UTC'))
  for (const instant of [Date.parse('0050-06-01T00:00:00Z'), Date.parse('0999-12-31T12:00:00Z'), -8.64e15, 8.64e15, Number.NaN, Infinity, Date.parse('+010000-01-01T00:00:00Z')]) {
    t.throws(() => periodAt('daily', 'UTC', instant), RangeError, `instant ${instant}`)
  }
  for (const keep of [-1, 1.5, Infinity, Number.NaN, 1001]) t.throws(() => keptPeriods('daily', 'UTC', at('2026-11-23T00:00:00Z'), keep), RangeError, `keep ${keep}`)
  t.equal(keptPeriods('daily', 'UTC', at('2026-11-23T00:00:00Z'), 1000).length, 1001)
  t.equal(periodOfId('daily', '2011-12-30', 'Pacific/Apia'), undefined, 'Samoa skipped 2011-12-30')
  t.equal(periodOfId('daily', '2011-12-31', 'Pacific/Apia')?.id, '2011-12-31')
})

t.test('time zones: IANA names only', async t => {
  for (const zone of ['UTC', 'America/New_York', 'Pacific/Kiritimati', 'Europe/Berlin']) t.equal(isTimeZone(zone), true, zone)
  for (const zone of ['', 'Mars/Olympus_Mons', 'UTC+2', '__proto__', 'constructor', 'x'.repeat(200), 'utc', 'america/new_york']) t.equal(isTimeZone(zone), false, JSON.stringify(zone.slice(0, 20)))
  for (const zone of [null, undefined, 5, {}]) t.equal(isTimeZone(zone), false, String(zone))
  t.equal(canonicalTimeZone('america/new_york'), 'America/New_York', 'the canonical spelling of a zone')
  t.equal(canonicalTimeZone('Mars/Olympus_Mons'), undefined)
})

t.test('periods_since: when a board began keeping each kind, and which periods it kept', async t => {
  const monday = Date.UTC(2026, 10, 23, 12) // Monday 2026-11-23 12:00 UTC
  const made = periodsSinceAfter(undefined, ['daily', 'weekly'], monday)
  t.same(made, { daily: monday, weekly: monday }, 'a new board keeps its kinds from now')
  const later = monday + 86_400_000
  t.same(periodsSinceAfter({ periods: ['daily', 'weekly'], periods_since: made }, ['daily', 'monthly'], later), { daily: monday, monthly: later }, 'a kind kept already keeps its instant; a new one begins now; a dropped one is forgotten')
  t.same(periodsSinceAfter({ periods: ['daily'], periods_since: {} }, ['daily', 'weekly'], later), { weekly: later }, 'a kind kept from before this was recorded stays unknown')
  t.same(periodsSinceAfter({ periods: ['weekly'], periods_since: { weekly: monday } }, ['daily', 'weekly'], later), { daily: later, weekly: monday }, 'a kind dropped and taken up again begins anew')

  const sunday = periodAt('daily', 'UTC', monday - 86_400_000)
  const today = periodAt('daily', 'UTC', monday)
  const lastWeek = previousPeriod(periodAt('weekly', 'UTC', monday), 'UTC')
  t.notOk(keptDuring(sunday, made), 'a day that ended before the board kept days held nothing')
  t.ok(keptDuring(today, made), 'the day it began keeping them: kept from then on')
  t.notOk(keptDuring(lastWeek, made), 'nor the week before')
  t.ok(keptDuring(sunday, {}), 'no instant recorded: every kept period counts, as before')

  t.equal(storedPeriodsSince({ weekly: 2, daily: 1 }), 'daily:1,weekly:2', 'stored in PERIOD_KINDS order')
  t.same(periodsSinceOf('daily:1,weekly:2', ['daily', 'weekly']), { daily: 1, weekly: 2 }, 'read back')
  t.same(periodsSinceOf({ daily: 5 }, ['daily']), { daily: 5 }, 'from a named board\'s JSON too')
  t.same(periodsSinceOf('daily:1,weekly:2', ['daily']), { daily: 1 }, 'only the kinds the board keeps')
  t.same(periodsSinceOf('daily:x,weekly:-3,monthly:1e400,__proto__:4,constructor:5', ['daily', 'weekly', 'monthly']), {}, 'anything else, written by hand, is left out')
  t.same(periodsSinceOf(undefined, ['daily']), {}, 'nothing stored')
})
