/*
 * How a board's scores are shown (docs/interface.md#score-formats): the API
 * and the exports keep scores as raw integers; a page turns them into text
 * with the board's format, in the viewer's locale, with this one function
 * (the console and SDK users call it; the play page and the embed are to).
 * No dependency: Intl does the locale's digits, grouping, minus sign and
 * decimal separator, for every part of the text.
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

/** What a locale writes numbers with: grouped whole numbers, zero-padded digits (1 to 6 of them), its decimal separator and minus sign. */
interface LocaleParts {
  whole: Intl.NumberFormat
  padded: Intl.NumberFormat[]
  separator: string
  minus: string
}

// Intl.NumberFormat objects are costly to make: one set per locale is kept.
const locales = new Map<string, LocaleParts>()

function localeParts (locale: string | readonly string[] | undefined): LocaleParts {
  const key = Array.isArray(locale) ? locale.join(',') : String(locale ?? '')
  let parts = locales.get(key)
  if (parts === undefined) {
    const tags = locale as string | string[] | undefined
    const whole = new Intl.NumberFormat(tags, { maximumFractionDigits: 0 })
    parts = {
      whole,
      // Minutes, seconds and a fraction in the locale's own digits (Arabic-Indic in ar-EG), never ASCII beside them.
      padded: Array.from({ length: 7 }, (_, digits) => new Intl.NumberFormat(tags, { minimumIntegerDigits: Math.max(1, digits), useGrouping: false, maximumFractionDigits: 0 })),
      separator: new Intl.NumberFormat(tags, { minimumFractionDigits: 1 }).formatToParts(1.5).find(part => part.type === 'decimal')?.value ?? '.',
      minus: whole.formatToParts(-1).find(part => part.type === 'minusSign')?.value ?? '-'
    }
    if (locales.size < 64) locales.set(key, parts)
  }
  return parts
}

/**
 * A score as text in `format` and the viewer's `locale` (default: the
 * runtime's). Exact for every integer a board holds (within ±2^53 - 1): a
 * decimal is split into its whole part and its digits, never divided as a
 * float; a time's fraction is cut, not rounded, as a stopwatch shows it.
 */
export function formatScore (score: number, format: ScoreFormat = DEFAULT_SCORE_FORMAT, locale?: string | readonly string[]): string {
  // A board holds integers; anything else (NaN, Infinity) is shown as it is rather than as nonsense.
  if (!Number.isFinite(score)) return String(score)
  const { whole, padded, separator, minus } = localeParts(locale)
  const size = Math.abs(Math.trunc(score))
  // One sign for every type, the locale's (U+2212 in sv), and none for a zero.
  const sign = size > 0 && score < 0 ? minus : ''
  const pad = (value: number, digits: number): string => (padded[digits] as Intl.NumberFormat).format(value)
  let text: string
  if (format.type === 'decimal' && format.decimals > 0) {
    const unit = 10 ** format.decimals
    text = `${whole.format(Math.floor(size / unit))}${separator}${pad(size % unit, format.decimals)}`
  } else if (format.type === 'time') {
    const hours = Math.floor(size / 3_600_000)
    const minutes = Math.floor(size / 60_000) % 60
    const seconds = Math.floor(size / 1000) % 60
    // The fraction is cut to its digits (as a stopwatch shows it), not rounded.
    const fraction = format.decimals > 0 ? `${separator}${pad(Math.floor((size % 1000) / 10 ** (3 - format.decimals)), format.decimals)}` : ''
    text = `${hours > 0 ? `${whole.format(hours)}:${pad(minutes, 2)}` : pad(minutes, 1)}:${pad(seconds, 2)}${fraction}`
  } else {
    text = whole.format(size)
  }
  text = `${sign}${text}`
  return format.unit === '' ? text : `${text}\u00a0${format.unit}`
}
