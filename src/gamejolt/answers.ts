/*
 * Game Jolt's answers, in its four formats (docs/gamejolt.md#answers), and
 * its error messages word for word: clients compare them. Every answer is
 * HTTP 200; `success` says how it went.
 */

/** A value as Game Jolt writes it: text (every value a string), a number (the `*_timestamp` fields), or a list of records. */
export type GamejoltValue = string | number | GamejoltRecord[]
/** One record's fields in the order Game Jolt writes them. */
export type GamejoltRecord = Record<string, GamejoltValue>

/** An answer: success and its fields, or a failure and its message (none for sessions/check's plain "no"). */
export type GamejoltAnswer = { success: true, fields: GamejoltRecord } | { success: false, message?: string, fields?: GamejoltRecord }

export const FORMATS = ['json', 'keypair', 'dump', 'xml'] as const
export type GamejoltFormat = typeof FORMATS[number]

/** Game Jolt's messages, word for word (its docs' tables), by what went wrong. */
export const MESSAGES = {
  unknown: 'Unknown fatal error occurred.',
  noSignature: 'You must enter a signature with your request.',
  badSignature: 'The signature you entered for the request is invalid.',
  badGame: 'The game ID you passed in does not point to a valid game.',
  noUser: 'No such user with the credentials passed in could be found.',
  usersNeedOne: 'You must enter in a user ID or username.',
  noSuchUser: 'No such user could be found.',
  guestsRefused: 'Guests are not allowed to enter scores for this game.',
  scoreNeedsPlayer: 'You must pass in a user/guest for this score.',
  scoreNeeded: 'You must enter a score.',
  sortNeeded: 'You must enter a sort value for this score, and it must be numeric.',
  scoreFailed: 'Unknown error has occured',
  badTable: 'The high score table ID you passed in does not belong to this game or has been deleted.',
  userAndGuest: "'username' and 'guest' are mutually exclusive",
  betterAndWorse: "'better-than' and 'worse-than' are mutually exclusive",
  noRank: 'Could not get a rank for the parameters you entered.',
  noSession: 'Could not find an open session. You must open a new one.',
  badTrophy: 'Incorrect trophy ID.',
  hasTrophy: 'The user already has this trophy.',
  lacksTrophy: 'The user does not have this trophy.',
  trophyNotOfGame: 'The trophy returned does not belong to this game.',
  keyNeeded: 'You must enter the key for the item you would like to retrieve data for.',
  noItem: 'No item with that key could be found.',
  dataNeeded: 'You must enter data with the request.',
  operationNeeded: 'You must enter an operation with the request.',
  badOperation: 'Operation must be add, subtract, multiply, divide, append or prepend.',
  valueNeeded: 'You must enter an value with the request.',
  storedNotNumeric: 'Mathematical operations require the pre-existing data stored to also be numeric.',
  valueNotNumeric: 'Value must be numeric if operation is mathematical.',
  divisionByZero: 'GAME JOLT STOP: 0x00000019 (0x00000000, 0xC00E0FF0, 0xFFFFEFD4, 0xC0000000) UNIVERSAL_COLLAPSE'
} as const

/** `remove`'s and `update`'s message for a key that has no item: Game Jolt names the key. */
export const noItemWithKey = (key: string): string => `There is no item with the key passed in: ${key}`

/** A failure the endpoints throw, answered in the request's format. */
export class GamejoltFailure extends Error {
  constructor (message: string, readonly fields?: GamejoltRecord) {
    super(message)
    this.name = 'GamejoltFailure'
  }
}

export function refuse (message: string): never {
  throw new GamejoltFailure(message)
}

/** A success with its fields. */
export function success (fields: GamejoltRecord = {}): GamejoltAnswer {
  return { success: true, fields }
}

/** The whole answer as one record, `success` first, then `message` when it failed. */
function recordOf (answer: GamejoltAnswer): GamejoltRecord {
  return answer.success
    ? { success: 'true', ...answer.fields }
    : { success: 'false', ...answer.fields, ...(answer.message === undefined ? {} : { message: answer.message }) }
}

/** JSON: `{"response": {...}}`, every value a string but the timestamps. */
export function jsonRecord (answer: GamejoltAnswer): GamejoltRecord {
  return recordOf(answer)
}

/** A keypair value: quoted, its quotes and backslashes escaped, on one line. */
function keypairValue (value: string | number): string {
  return `"${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n|\r/g, '\\n')}"`
}

/** Keypair lines, a list's records one after the other (as Game Jolt writes them), each line ending in CRLF. */
function keypairLines (record: GamejoltRecord): string {
  let text = ''
  for (const [name, value] of Object.entries(record)) {
    if (Array.isArray(value)) for (const item of value) text += keypairLines(item)
    else text += `${name}:${keypairValue(value)}\r\n`
  }
  return text
}

/** An XML list's items are named by the list: scores holds score, trophies trophy, keys key. */
function itemName (list: string): string {
  if (list.endsWith('ies')) return `${list.slice(0, -3)}y`
  if (list.endsWith('s')) return list.slice(0, -1)
  return 'item'
}

function cdata (text: string): string {
  return `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`
}

function xmlFields (record: GamejoltRecord): string {
  let text = ''
  for (const [name, value] of Object.entries(record)) {
    if (Array.isArray(value)) text += `<${name}>${value.map(item => `<${itemName(name)}>${xmlFields(item)}</${itemName(name)}>`).join('')}</${name}>`
    else if (typeof value === 'number') text += `<${name}>${value}</${name}>`
    else text += `<${name}>${cdata(value)}</${name}>`
  }
  return text
}

/** The answer's body and media type in a format. */
export function writeAnswer (answer: GamejoltAnswer, format: GamejoltFormat): { body: string, type: string } {
  switch (format) {
    case 'json':
      return { body: JSON.stringify({ response: recordOf(answer) }), type: 'application/json; charset=utf-8' }
    case 'keypair':
      return { body: keypairLines(recordOf(answer)), type: 'text/plain; charset=utf-8' }
    case 'xml':
      return { body: `<?xml version="1.0" encoding="UTF-8"?>\n<response>${xmlFields(recordOf(answer))}</response>`, type: 'text/xml; charset=utf-8' }
    case 'dump': {
      // Exactly the data after the first line, nothing after it: clients read all of it.
      if (!answer.success) return { body: `FAILURE\r\n${answer.message ?? ''}`, type: 'text/plain; charset=utf-8' }
      const { data, ...rest } = answer.fields
      return { body: `SUCCESS\r\n${typeof data === 'string' || typeof data === 'number' ? String(data) : keypairLines(rest)}`, type: 'text/plain; charset=utf-8' }
    }
  }
}
