import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf } from '../helpers/app.js'
import { gamejoltIdOf } from '../../src/rules/gamejolt-ids.js'

/*
 * Game Jolt's API beside ours (docs/gamejolt.md): turning it on for a game,
 * its paths, its signature as each kind of client writes it, its four
 * formats and its words.
 */

const hash = (algorithm: 'md5' | 'sha1', text: string): string => createHash(algorithm).update(text).digest('hex')

interface Link { game_id: string, gamejolt_game_id: number, private_key: string }

async function turnOn (app: FastifyInstance, gameId: string, body: Record<string, unknown> = {}): Promise<Link> {
  return dataOf(await admin(app, 'PUT', `/admin/games/${gameId}/gamejolt`, body)) as Link
}

/** A GET signed as most clients sign it: the URL as sent, over Game Jolt's address (or `base`), then the key. */
function signed (path: string, key: string, { base = 'https://api.gamejolt.com', algorithm = 'md5' as 'md5' | 'sha1' } = {}): string {
  return `${path}&signature=${hash(algorithm, `${base}${path}${key}`)}`
}

async function call (app: FastifyInstance, url: string, options: { method?: 'GET' | 'POST', payload?: string } = {}): Promise<{ body: string, json: () => any, status: number, type: string }> {
  const response = await app.inject({ method: options.method ?? 'GET', url, ...(options.payload === undefined ? {} : { payload: options.payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } }) })
  return { body: response.body, json: () => response.json(), status: response.statusCode, type: String(response.headers['content-type']) }
}

t.test('an operator turns the API on, sees it, changes its key and turns it off', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const other = await createGame(app)
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt`)), 'not_found', 'off at first')

  const made = await turnOn(app, game.gameId)
  t.equal(made.game_id, game.gameId)
  t.ok(Number.isInteger(made.gamejolt_game_id) && made.gamejolt_game_id > 0, `an id is made (${made.gamejolt_game_id})`)
  t.match(made.private_key, /^[0-9a-f]{32}$/, 'and a key of 32 hex digits, as Game Jolt makes them')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt`)), made, 'read back as made')

  const time = `/api/game/v1_2/time/?game_id=${made.gamejolt_game_id}`
  t.equal((await call(app, signed(time, made.private_key))).json().response.success, 'true', 'the API answers with its key')

  // A second PUT without a key makes a new one and keeps the id: the old key stops at once.
  const again = await turnOn(app, game.gameId)
  t.equal(again.gamejolt_game_id, made.gamejolt_game_id, 'the id is kept')
  t.not(again.private_key, made.private_key, 'a new key')
  t.same((await call(app, signed(time, made.private_key))).json().response, { success: 'false', message: 'The signature you entered for the request is invalid.' }, 'the old key is refused')
  t.equal((await call(app, signed(time, again.private_key))).json().response.success, 'true', 'the new one works')

  // What is given is taken: the id and key a build already carries.
  const given = await turnOn(app, game.gameId, { gamejolt_game_id: 424242, private_key: 'e3b0c44298fc1c149afbf4c8996fb924' })
  t.same(given, { game_id: game.gameId, gamejolt_game_id: 424242, private_key: 'e3b0c44298fc1c149afbf4c8996fb924', primary_table_id: gamejoltIdOf('default'), data_limits: { item_bytes: 1_048_576, items_per_user: 1000, items_per_game: 100_000, game_bytes: 268_435_456 } })
  t.same((await call(app, signed(time, again.private_key))).json().response.message, 'The game ID you passed in does not point to a valid game.', 'the old id leads nowhere now')
  t.equal((await call(app, signed('/api/game/v1_2/time/?game_id=424242', given.private_key))).json().response.success, 'true', 'the new id answers')

  // One id, one game.
  const taken = await admin(app, 'PUT', `/admin/games/${other.gameId}/gamejolt`, { gamejolt_game_id: 424242 })
  t.equal(errorOf(taken), 'invalid_param', 'an id another game has is refused')
  t.match(taken.json().message, /gamejolt_game_id/)
  for (const [body, what] of [[{ gamejolt_game_id: 0 }, 'id 0'], [{ gamejolt_game_id: 2 ** 31 }, 'an id past 32 bits'], [{ gamejolt_game_id: '12' }, 'an id as text in JSON'], [{ private_key: 'short' }, 'a key of 5 characters'], [{ private_key: 'has space inside it' }, 'a key with spaces'], [{ other: 1 }, 'an unknown field']] as const) {
    t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${other.gameId}/gamejolt`, body)), 'invalid_param', `${what} is invalid_param`)
  }
  t.equal(errorOf(await admin(app, 'PUT', '/admin/games/nope/gamejolt', {})), 'not_found', 'no such game')

  // The audit log has each change, the key masked.
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit?action=game.gamejolt`)).items as Array<{ action: string, after: Record<string, unknown> | null }>
  t.equal(audit.length, 3, 'three changes audited')
  t.equal(audit[0]?.after?.private_key, '(masked)', 'the key masked in the audit log')
  t.notMatch(JSON.stringify(audit), /e3b0c44298fc1c149afbf4c8996fb924/, 'the key nowhere in it')

  t.same(dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/gamejolt`)), { game_id: game.gameId }, 'turned off')
  t.equal((await call(app, signed('/api/game/v1_2/time/?game_id=424242', given.private_key))).json().response.message, 'The game ID you passed in does not point to a valid game.', 'off: the game is not valid for the API')
  t.equal(errorOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/gamejolt`)), 'not_found', 'off already')
  // The id is free again for another game.
  t.equal((await turnOn(app, other.gameId, { gamejolt_game_id: 424242 })).gamejolt_game_id, 424242, 'the id freed is another game\'s now')
})

t.test('paths, versions and spellings', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = await turnOn(app, game.gameId)
  for (const version of ['v1', 'v1_1', 'v1_2']) {
    for (const path of ['time/', 'time', 'time/fetch/', 'TIME/', 'get-time']) {
      const url = `/api/game/${version}/${path}?game_id=${link.gamejolt_game_id}`
      t.equal((await call(app, signed(url, link.private_key))).json().response.success, 'true', `${version}/${path}`)
    }
  }
  const unknown = await call(app, signed(`/api/game/v1_2/nothing/?game_id=${link.gamejolt_game_id}`, link.private_key))
  t.equal(unknown.status, 200, 'an unknown endpoint is HTTP 200 too')
  t.same(unknown.json().response.success, 'false', 'and a failure in Game Jolt\'s form')
  t.match(unknown.json().response.message, /No such Game Jolt API endpoint/)
  t.equal((await call(app, signed(`/api/game/v9/time/?game_id=${link.gamejolt_game_id}`, link.private_key))).json().response.success, 'false', 'an unknown version')
})

t.test('the signature as each kind of client writes it, never with a wrong key', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = await turnOn(app, game.gameId)
  const key = link.private_key
  const id = link.gamejolt_game_id
  const ok = async (url: string, what: string, options?: { method?: 'GET' | 'POST', payload?: string }): Promise<void> => {
    t.same((await call(app, url, options)).json().response.success, 'true', what)
  }
  const refused = async (url: string, message: string, what: string, options?: { method?: 'GET' | 'POST', payload?: string }): Promise<void> => {
    t.same((await call(app, url, options)).json().response, { success: 'false', message }, what)
  }
  const path = `/api/game/v1_2/time/?game_id=${id}`
  await ok(signed(path, key), 'MD5 over https://api.gamejolt.com')
  await ok(signed(path, key, { base: 'http://api.gamejolt.com' }), 'over http:// (the docs\' own examples)')
  await ok(signed(path, key, { base: 'http://localhost:80' }), 'over the address it reached')
  await ok(signed(path, key, { algorithm: 'sha1' }), 'SHA-1')
  await ok(signed(path, key).replace(/signature=(\w+)/, (_all, value: string) => `signature=${value.toUpperCase()}`), 'the signature in capitals')
  await refused(signed(path, 'not-the-key-0123'), 'The signature you entered for the request is invalid.', 'a wrong key')
  await refused(path, 'You must enter a signature with your request.', 'no signature')
  await refused(`${path}&signature=`, 'You must enter a signature with your request.', 'an empty signature')
  await refused(`${path}&signature=abc`, 'The signature you entered for the request is invalid.', 'a signature of neither length')
  await refused(`${path}&signature=${'z'.repeat(32)}`, 'The signature you entered for the request is invalid.', 'a signature that is not hex')
  await refused(signed(`${path}&extra=1`, key).replace('&extra=1', ''), 'The signature you entered for the request is invalid.', 'a parameter taken out after signing')
  await refused(`${signed(path, key)}&table_id=2`, 'The signature you entered for the request is invalid.', 'a parameter added after the signature')

  // Values: signed as sent (encoded), or raw with the HTTP stack encoding them (%20 or +).
  const raw = `/api/game/v1_2/time/?game_id=${id}&note=a b&c`
  const rawSignature = hash('md5', `https://api.gamejolt.com${raw}${key}`)
  await ok(`/api/game/v1_2/time/?game_id=${id}&note=a%20b%26c&signature=${rawSignature}`, 'raw values signed, sent with %20')
  await ok(`/api/game/v1_2/time/?game_id=${id}&note=a+b%26c&signature=${rawSignature}`, 'raw values signed, sent with +')
  const encoded = `/api/game/v1_2/time/?game_id=${id}&note=a%20b%26c`
  await ok(signed(encoded, key), 'encoded values signed as sent')
  // The format added after signing, as some clients do.
  await ok(`${signed(path, key)}&format=json`, 'format added after the signature')
  await ok(`/api/game/v1_2/time/?signature=${hash('md5', `https://api.gamejolt.com/api/game/v1_2/time/?game_id=${id}${key}`)}&game_id=${id}`, 'the signature first')

  // POST fields: sorted by name, name and value, after the URL.
  const postPath = `/api/game/v1_2/time/?game_id=${id}`
  const postSignature = hash('md5', `https://api.gamejolt.com${postPath}achievedtrueuser_token123456${key}`)
  await ok(`${postPath}&signature=${postSignature}`, 'POST fields signed as the docs say', { method: 'POST', payload: 'user_token=123456&achieved=true' })
  await refused(`${postPath}&signature=${hash('md5', `https://api.gamejolt.com${postPath}${key}`)}`, 'The signature you entered for the request is invalid.', 'v1_2: POST fields left out of the signature are refused', { method: 'POST', payload: 'user_token=123456&achieved=true' })
  const oldPath = `/api/game/v1/time/?game_id=${id}`
  await ok(`${oldPath}&signature=${hash('md5', `https://api.gamejolt.com${oldPath}${key}`)}`, 'v1: POST fields may come unsigned, as that version allowed', { method: 'POST', payload: 'data=anything' })
  await ok(`${oldPath}&signature=${hash('md5', `https://api.gamejolt.com${oldPath}dataanything${key}`)}`, 'v1: or signed', { method: 'POST', payload: 'data=anything' })
  // An array field: each element under its name without [].
  const arrays = hash('md5', `http://api.gamejolt.com${postPath}requestsabcrequestsdefrequestsghi${key}`)
  t.same((await call(app, `${postPath}&signature=${arrays}`, { method: 'POST', payload: 'requests[]=abc&requests[]=def&requests[]=ghi' })).json().response.success, 'true', 'an array field signed element by element')
})

t.test('formats: json, keypair, dump and xml, for a success and a failure', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = await turnOn(app, game.gameId)
  const path = `/api/game/v1_2/time/?game_id=${link.gamejolt_game_id}`
  const answer = async (format: string, key = link.private_key) => await call(app, signed(`${path}&format=${format}`, key))

  const json = await answer('json')
  t.match(json.type, /^application\/json/)
  const time = json.json().response
  t.equal(time.success, 'true')
  t.equal(typeof time.timestamp, 'number', 'a timestamp is a number')
  t.ok(Math.abs(time.timestamp - Date.now() / 1000) < 5, 'the server\'s clock')
  t.equal(time.timezone, 'UTC')
  for (const field of ['year', 'month', 'day', 'hour', 'minute', 'second']) t.equal(typeof time[field], 'string', `${field} is a string`)

  const keypair = await answer('keypair')
  t.match(keypair.body, /^success:"true"\r\ntimestamp:"\d+"\r\ntimezone:"UTC"\r\nyear:"\d{4}"\r\n/, 'keypair: key:"value" lines')
  t.ok(keypair.body.endsWith('\r\n') && !keypair.body.replace(/\r\n/g, '').includes('\n'), 'each line ends in CRLF')

  const xml = await answer('xml')
  t.match(xml.type, /xml/)
  t.match(xml.body, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<response><success><!\[CDATA\[true\]\]><\/success><timestamp>\d+<\/timestamp><timezone><!\[CDATA\[UTC\]\]><\/timezone>/)

  const dump = await answer('dump')
  t.match(dump.body, /^SUCCESS\r\n/, 'dump: SUCCESS first')
  const failed = await answer('dump', 'wrong-key-wrong-key')
  t.equal(failed.body, 'FAILURE\r\nThe signature you entered for the request is invalid.', 'dump: FAILURE and the message, nothing after it')
  t.equal((await answer('keypair', 'wrong-key-wrong-key')).body, 'success:"false"\r\nmessage:"The signature you entered for the request is invalid."\r\n', 'keypair failure')
  t.equal((await answer('xml', 'wrong-key-wrong-key')).body, '<?xml version="1.0" encoding="UTF-8"?>\n<response><success><![CDATA[false]]></success><message><![CDATA[The signature you entered for the request is invalid.]]></message></response>', 'xml failure')
  t.equal((await call(app, `${path}&format=yaml&signature=x`)).json().response.success, 'false', 'an unknown format answers JSON, the default')
})

t.test('an unknown, unapproved or unsigned game, and bad input, answer Game Jolt\'s words, never a crash', async t => {
  const { app } = await buildTestApp(t)
  const hidden = await createGame(app, { approved: false })
  const link = await turnOn(app, hidden.gameId)
  const badGame = 'The game ID you passed in does not point to a valid game.'
  const message = async (url: string, options?: { method?: 'GET' | 'POST', payload?: string }): Promise<string> => (await call(app, url, options)).json().response.message
  t.equal(await message(signed(`/api/game/v1_2/time/?game_id=${link.gamejolt_game_id}`, link.private_key)), badGame, 'a game not approved')
  t.equal(await message('/api/game/v1_2/time/?game_id=999999999&signature=00'), badGame, 'an id no game has')
  t.equal(await message('/api/game/v1_2/time/?signature=00'), badGame, 'no game_id')
  for (const id of ['abc', '-1', '1e3', '99999999999', '%00', '__proto__', 'constructor']) t.equal(await message(`/api/game/v1_2/time/?game_id=${id}&signature=00`), badGame, `game_id ${id}`)
  t.match(await message('/api/game/v1_2/time/?game_id=1&game_id=2'), /sent more than once, with different values/, 'a parameter sent twice with different values')
  t.equal(await message('/api/game/v1_2/time/?game_id=1&game_id=1&signature=00'), badGame, 'the same value twice is one (gamejolt-ts-sdk does it)')
  t.match(await message('/api/game/v1_2/time/?game_id=%E0%A4%A'), /malformed percent-encoding/, 'a broken escape')
  t.match(await message('/api/game/v1_2/time/?game_id=1', { method: 'POST', payload: 'data=%zz' }), /malformed percent-encoding/, 'a broken escape in the body')
  const huge = await app.inject({ method: 'POST', url: '/api/game/v1_2/time/?game_id=1', payload: `data=${'x'.repeat(4 * 1_048_576)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(huge.statusCode, 200, 'a body past the limit is answered 200')
  t.equal(huge.json().response.success, 'false', 'as a failure')
  const json = await app.inject({ method: 'POST', url: '/api/game/v1_2/time/?game_id=1', payload: '{"a":1}', headers: { 'content-type': 'application/json' } })
  t.equal(json.json().response.message, badGame, 'a JSON body is no fields, not a crash')
})

t.test('the CLI turns the API on, reads it and turns it off, as the admin API does', async t => {
  const { runCli } = await import('../../src/cli.js')
  const { app, redis } = await buildTestApp(t)
  const game = await createGame(app)
  const cli = async (...argv: string[]): Promise<{ code: number, out: string, err: string }> => {
    let out = ''
    let err = ''
    const code = await runCli(argv, { out: line => { out += `${line}\n` }, err: line => { err += `${line}\n` }, env: { REDIS_URL: redis.url }, readLine: async () => '' })
    return { code, out, err }
  }
  const set = await cli('gamejolt', 'set', game.gameId, '--gamejolt_game_id', '5150', '--private_key', 'cli-key-0123456789')
  t.equal(set.code, 0, set.err)
  t.match(JSON.parse(set.out), { game_id: game.gameId, gamejolt_game_id: 5150, private_key: 'cli-key-0123456789' })
  await app.syncRecordCache()
  t.equal((await call(app, signed('/api/game/v1_2/time/?game_id=5150', 'cli-key-0123456789'))).json().response.success, 'true', 'the service answers at once')
  const read = await cli('gamejolt', 'get', game.gameId)
  t.same(JSON.parse(read.out), JSON.parse(set.out), 'read back')
  t.equal((await cli('gamejolt', 'off', game.gameId)).code, 0)
  await app.syncRecordCache()
  t.equal((await call(app, signed('/api/game/v1_2/time/?game_id=5150', 'cli-key-0123456789'))).json().response.message, 'The game ID you passed in does not point to a valid game.', 'off at once')
  const again = await cli('gamejolt', 'get', game.gameId)
  t.not(again.code, 0, 'reading it off fails')
  t.match(again.err, /off for this game/)
})
