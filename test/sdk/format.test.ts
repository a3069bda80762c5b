import t from 'tap'
import { DEFAULT_SCORE_FORMAT, formatScore } from '../../sdk/format.js'

/*
 * Score formats (docs/interface.md#score-formats): one function turns a raw
 * score into what a page shows, in the viewer's locale, exact for every
 * integer a board holds.
 */

t.test('integer: grouped in the locale', async t => {
  t.equal(formatScore(1234567, DEFAULT_SCORE_FORMAT, 'en-US'), '1,234,567')
  t.equal(formatScore(1234567, DEFAULT_SCORE_FORMAT, 'de-DE'), '1.234.567')
  t.equal(formatScore(-42, DEFAULT_SCORE_FORMAT, 'en-US'), '-42')
  t.equal(formatScore(0, DEFAULT_SCORE_FORMAT, 'en-US'), '0')
  t.equal(formatScore(9007199254740991, DEFAULT_SCORE_FORMAT, 'en-US'), '9,007,199,254,740,991', 'the largest score, every digit')
  t.equal(formatScore(1837, { type: 'integer', decimals: 0, unit: 'pts' }, 'en-US'), '1,837\u00a0pts', 'a unit after a no-break space')
})

t.test('decimal: the score in 10^-decimals units, split exactly, never divided as a float', async t => {
  const hundredths = { type: 'decimal', decimals: 2, unit: '' } as const
  t.equal(formatScore(1234567, hundredths, 'en-US'), '12,345.67')
  t.equal(formatScore(1234567, hundredths, 'fr-FR'), '12\u202f345,67', 'the locale\'s grouping and separator')
  t.equal(formatScore(5, hundredths, 'en-US'), '0.05')
  t.equal(formatScore(-5, hundredths, 'en-US'), '-0.05', 'a negative below one keeps its sign')
  t.equal(formatScore(9007199254740991, { type: 'decimal', decimals: 6, unit: 'km' }, 'en-US'), '9,007,199,254.740991\u00a0km')
  t.equal(formatScore(100, { type: 'decimal', decimals: 1, unit: '' }, 'en-US'), '10.0')
})

t.test('time: ms as a stopwatch shows them, the fraction cut, hours past 60 minutes', async t => {
  const ms = { type: 'time', decimals: 3, unit: '' } as const
  t.equal(formatScore(62_345, ms, 'en-US'), '1:02.345')
  t.equal(formatScore(62_345, { ...ms, decimals: 2 }, 'en-US'), '1:02.34', 'cut, not rounded')
  t.equal(formatScore(62_999, { ...ms, decimals: 0 }, 'en-US'), '1:02')
  t.equal(formatScore(5_007, ms, 'en-US'), '0:05.007')
  t.equal(formatScore(3_723_004, ms, 'en-US'), '1:02:03.004')
  t.equal(formatScore(62_345, ms, 'de-DE'), '1:02,345', 'the locale\'s decimal separator')
  t.equal(formatScore(-1500, ms, 'en-US'), '-0:01.500')
  t.equal(formatScore(360_000_000_000, ms, 'en-US'), '100,000:00:00.000', 'hours grouped')
})

t.test('every part in the locale\'s own digits and minus sign; a zero has no sign; nothing that is not a number turns into nonsense', async t => {
  t.equal(formatScore(3_723_004, { type: 'time', decimals: 3, unit: '' }, 'ar-EG'), '١:٠٢:٠٣٫٠٠٤', 'Arabic-Indic digits throughout, the locale\'s separator')
  t.equal(formatScore(1234567, { type: 'decimal', decimals: 2, unit: '' }, 'ar-EG'), '١٢٬٣٤٥٫٦٧')
  t.equal(formatScore(-42, DEFAULT_SCORE_FORMAT, 'sv-SE'), '\u221242', 'Swedish writes U+2212')
  t.equal(formatScore(-5, { type: 'decimal', decimals: 2, unit: '' }, 'sv-SE'), '\u22120,05', 'the same sign for a decimal')
  t.equal(formatScore(-0, DEFAULT_SCORE_FORMAT, 'en-US'), '0')
  t.equal(formatScore(-0, { type: 'decimal', decimals: 2, unit: '' }, 'en-US'), '0.00')
  t.equal(formatScore(Number.MIN_SAFE_INTEGER, DEFAULT_SCORE_FORMAT, 'en-US'), '-9,007,199,254,740,991')
  t.equal(formatScore(Number.NaN), 'NaN')
  t.equal(formatScore(Number.POSITIVE_INFINITY), 'Infinity')
})
