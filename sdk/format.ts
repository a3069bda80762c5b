/*
 * How a board's scores are shown (docs/interface.md#score-formats): the API
 * and the exports keep scores as raw integers; a page turns them into text
 * with the board's format, in the viewer's locale, with this one function
 * (the play page, the console, the <ranking-board> embed and SDK users all
 * call it). No dependency: Intl does the locale's digits, grouping and
 * decimal separator.
 */

/** integer: 1,234,567; decimal: the score in hundredths (decimals 2) as 12,345.67; time: the score in ms as 1:02.345. */
export const SCORE_FORMAT_TYPES = ['integer', 'decimal', 'time'] as const
export type ScoreFormatType = typeof SCORE_FORMAT_TYPES[number]

/** A board's display format. */
export interface ScoreFormat {
  type: ScoreFormatType
  /** decimal: the digits after the separator (1 to 6: the score is in 10^-decimals units); time: the digits of the seconds' fraction shown (0 to 3); integer: 0. */
  decimals: number
  /** Shown after the number, a no-break space between ('' for none): "35 coins". */
  unit: string
}

export const DEFAULT_SCORE_FORMAT: ScoreFormat = { type: 'integer', decimals: 0, unit: '' }

/** The digits a type takes when an operator names the type alone. */
export const DEFAULT_DECIMALS: Record<ScoreFormatType, number> = { integer: 0, decimal: 2, time: 3 }

/** The most digits each type takes. */
export const MAX_DECIMALS: Record<ScoreFormatType, number> = { integer: 0, decimal: 6, time: 3 }

/** The longest unit, in characters. */
export const MAX_UNIT_LENGTH = 16

// Intl.NumberFormat objects are costly to make: one per locale is kept.
const groupers = new Map<string, { whole: Intl.NumberFormat, separator: string }>()

function localeParts (locale: string | readonly string[] | undefined): { whole: Intl.NumberFormat, separator: string } {
  const key = Array.isArray(locale) ? locale.join(',') : String(locale ?? '')
  let parts = groupers.get(key)
  if (parts === undefined) {
    const whole = new Intl.NumberFormat(locale as string | string[] | undefined, { maximumFractionDigits: 0 })
    const separator = new Intl.NumberFormat(locale as string | string[] | undefined, { minimumFractionDigits: 1 }).formatToParts(1.5).find(part => part.type === 'decimal')?.value ?? '.'
    parts = { whole, separator }
    if (groupers.size < 64) groupers.set(key, parts)
  }
  return parts
}

const pad = (value: number, digits: number): string => String(value).padStart(digits, '0')

/**
 * A score as text in `format` and the viewer's `locale` (default: the
 * runtime's). Exact for every integer a board holds (within ±2^53 - 1): a
 * decimal is split into its whole part and its digits, never divided as a
 * float; a time's fraction is cut, not rounded, as a stopwatch shows it.
 */
export function formatScore (score: number, format: ScoreFormat = DEFAULT_SCORE_FORMAT, locale?: string | readonly string[]): string {
  const { whole, separator } = localeParts(locale)
  const sign = score < 0 ? '-' : ''
  const size = Math.abs(Math.trunc(score))
  let text: string
  if (format.type === 'decimal' && format.decimals > 0) {
    const unit = 10 ** format.decimals
    text = `${sign}${whole.format(Math.floor(size / unit))}${separator}${pad(size % unit, format.decimals)}`
  } else if (format.type === 'time') {
    const hours = Math.floor(size / 3_600_000)
    const minutes = Math.floor(size / 60_000) % 60
    const seconds = Math.floor(size / 1000) % 60
    const fraction = format.decimals > 0 ? `${separator}${pad(size % 1000, 3).slice(0, format.decimals)}` : ''
    text = `${sign}${hours > 0 ? `${whole.format(hours)}:${pad(minutes, 2)}` : String(minutes)}:${pad(seconds, 2)}${fraction}`
  } else {
    text = whole.format(score)
  }
  return format.unit === '' ? text : `${text}\u00a0${format.unit}`
}
