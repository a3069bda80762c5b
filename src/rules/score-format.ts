import { fail } from '../errors.js'
import { DEFAULT_DECIMALS, DEFAULT_SCORE_FORMAT, MAX_DECIMALS, MAX_UNIT_LENGTH, SCORE_FORMAT_TYPES, type ScoreFormat, type ScoreFormatType } from '../../sdk/format.js'

/*
 * A board's display format (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md): how pages show its scores
 * (sdk/format.ts formats them). The game's own board and each named board
 * have one, as three settings: score_format (the type), score_decimals,
 * score_unit. Scores stay raw integers in the API and the exports.
 */

/** The three settings, as a game record and a named board hold them. */
export interface DisplaySettings {
  score_format: ScoreFormatType
  score_decimals: number
  score_unit: string
}

export const DEFAULT_DISPLAY: DisplaySettings = { score_format: DEFAULT_SCORE_FORMAT.type, score_decimals: DEFAULT_SCORE_FORMAT.decimals, score_unit: DEFAULT_SCORE_FORMAT.unit }

/**
 * What a unit may not hold: control and format characters (a tab, a line or
 * paragraph separator, a direction override), lone surrogates and private
 * use; but the joiners (ZWJ, ZWNJ), which emoji and Persian or Indic words need.
 */
const UNIT_FORBIDDEN = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}]/u

/** A unit is text a page shows: none of UNIT_FORBIDDEN, no space at either end. */
export function isUnit (text: string): boolean {
  return !UNIT_FORBIDDEN.test(text) && text === text.trim()
}

/** The format the settings give, as pages take it. */
export function scoreFormatOf (settings: DisplaySettings): ScoreFormat {
  return { type: settings.score_format, decimals: settings.score_decimals, unit: settings.score_unit }
}

/**
 * The display settings a create or update body changes, checked against
 * the ones it changes (`current`): a type named alone takes its own number
 * of digits (decimal 2, time 3, integer 0); digits past what the type takes
 * are invalid_param.
 */
export function displayChanges (body: Partial<DisplaySettings>, current: DisplaySettings = DEFAULT_DISPLAY): Partial<DisplaySettings> {
  const changes: Partial<DisplaySettings> = {}
  if (body.score_format !== undefined) changes.score_format = body.score_format
  if (body.score_unit !== undefined) changes.score_unit = body.score_unit
  if (body.score_decimals !== undefined) changes.score_decimals = body.score_decimals
  else if (body.score_format !== undefined && body.score_format !== current.score_format) changes.score_decimals = DEFAULT_DECIMALS[body.score_format]
  const type = changes.score_format ?? current.score_format
  const decimals = changes.score_decimals ?? current.score_decimals
  if (decimals > MAX_DECIMALS[type] || (type === 'decimal' && decimals === 0)) {
    const range = type === 'integer' ? 'none (0)' : type === 'decimal' ? `1 to ${MAX_DECIMALS.decimal}` : `0 to ${MAX_DECIMALS.time}`
    fail('invalid_param', `Parameter "score_decimals" is not valid: a ${type} score takes ${range} decimals.`)
  }
  if (changes.score_unit !== undefined && (changes.score_unit.length > MAX_UNIT_LENGTH || !isUnit(changes.score_unit))) {
    fail('invalid_param', `Parameter "score_unit" is not valid: up to ${MAX_UNIT_LENGTH} characters, no control characters, no spaces at either end.`)
  }
  return changes
}

/** The settings as stored (a game's hash fields, a named board's JSON); anything not written by displayChanges reads as its default. */
export function displayFromStored (stored: { score_format?: unknown, score_decimals?: unknown, score_unit?: unknown }): DisplaySettings {
  const type = SCORE_FORMAT_TYPES.find(one => one === stored.score_format) ?? DEFAULT_DISPLAY.score_format
  const decimals = Number(stored.score_decimals ?? DEFAULT_DECIMALS[type])
  const unit = typeof stored.score_unit === 'string' && stored.score_unit.length <= MAX_UNIT_LENGTH && isUnit(stored.score_unit) ? stored.score_unit : ''
  return {
    score_format: type,
    score_decimals: Number.isInteger(decimals) && decimals >= (type === 'decimal' ? 1 : 0) && decimals <= MAX_DECIMALS[type] ? decimals : DEFAULT_DECIMALS[type],
    score_unit: unit
  }
}

/** The fields a game's hash stores them in. */
export function displayFields (changes: Partial<DisplaySettings>): string[] {
  const fields: string[] = []
  if (changes.score_format !== undefined) fields.push('score_format', changes.score_format)
  if (changes.score_decimals !== undefined) fields.push('score_decimals', String(changes.score_decimals))
  if (changes.score_unit !== undefined) fields.push('score_unit', changes.score_unit)
  return fields
}
