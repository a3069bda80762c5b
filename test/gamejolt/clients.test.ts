import { createHash } from 'node:crypto'
import t from 'tap'
import { admin, buildTestApp, createGame, dataOf } from '../helpers/app.js'

/*
 * The exact requests real Game Jolt clients build (their URL and signature
 * code is public; docs/gamejolt.md#signatures): each client's own way of
 * writing a score and a data-store item for game 12345, as it arrives here
 * (spaces as the client's HTTP stack sends them), signed over the text that
 * client hashes, with the game's key. The data-store items are stored; the
 * scores name a user "Player One" whom this service cannot have (no spaces
 * in usernames), so their answer is "no such user": the signature held.
 */

const KEY = 'k3y-0123456789abcdef'
const hash = (algorithm: 'md5' | 'sha1', text: string): string => createHash(algorithm).update(`${text}${KEY}`).digest('hex')
const NO_USER = 'No such user with the credentials passed in could be found.'

interface Vector {
  client: string
  /** What the server receives: path and query, without the signature. */
  url: string
  /** What the client hashes before the key. */
  hashed: string
  algorithm?: 'md5' | 'sha1'
  post?: string
  /** Where the signature goes: last (the default), or this query text after it (the format some add after signing). */
  after?: string
  expect: 'stored' | 'no user' | 'fetched'
}

const VECTORS: Vector[] = [
  { client: 'gamejolt-ts-sdk 0.1.1 (raw values hashed, the browser sends %20)', url: '/api/game/v1_2/scores/add/?game_id=12345&username=Player%20One&user_token=abc123&score=1,234%20Points&sort=1234&table_id=5&extra_data=lvl=3&x', hashed: 'http://api.gamejolt.com/api/game/v1_2/scores/add/?game_id=12345&username=Player One&user_token=abc123&score=1,234 Points&sort=1234&table_id=5&extra_data=lvl=3&x', expect: 'no user' },
  { client: 'gamejolt-ts-sdk 0.1.1, data-store/set', url: '/api/game/v1_2/data-store/set/?game_id=12345&key=save%201&data=hello%20world%20&%20more', hashed: 'http://api.gamejolt.com/api/game/v1_2/data-store/set/?game_id=12345&key=save 1&data=hello world & more', expect: 'stored' },
  { client: 'Hertzole GameJolt.NET 1.8.0', url: '/api/game/v1_2/scores/add/?username=Player%20One&user_token=abc123&score=1,234%20Points&sort=1234&extra_data=lvl=3&x&table_id=5&game_id=12345&format=json', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add/?username=Player One&user_token=abc123&score=1,234 Points&sort=1234&extra_data=lvl=3&x&table_id=5&game_id=12345&format=json', expect: 'no user' },
  { client: 'Hertzole GameJolt.NET 1.8.0, a fetch without a table id (its query in the path, no ?)', url: '/api/game/v1_2/scores/&limit=10&game_id=12345&format=json', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/&limit=10&game_id=12345&format=json', expect: 'fetched' },
  { client: 'Hertzole GameJolt.NET 1.8.0, data-store/set', url: '/api/game/v1_2/data-store/set/?key=save%201&data=hello%20world%20&%20more&game_id=12345&format=json', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set/?key=save 1&data=hello world & more&game_id=12345&format=json', expect: 'stored' },
  { client: 'InfectedBytes GameJoltDotNet (spaces as %20, hashed so)', url: '/api/game/v1_2/scores/add?game_id=12345&format=json&username=Player%20One&user_token=abc123&sort=1234&score=1,234%20Points&extra_data=lvl=3&x&table_id=5', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add?game_id=12345&format=json&username=Player%20One&user_token=abc123&sort=1234&score=1,234%20Points&extra_data=lvl=3&x&table_id=5', expect: 'no user' },
  { client: 'InfectedBytes GameJoltDotNet, data-store/set by POST (fields signed sorted)', url: '/api/game/v1_2/data-store/set?game_id=12345&format=json', post: 'key=save+1&data=hello+world+%26+more', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set?game_id=12345&format=jsondatahello world & morekeysave 1', expect: 'stored' },
  { client: 'gj-unity-api 2.5.6 (username lowercased)', url: '/api/game/v1_2/scores/add?game_id=12345&sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&username=player%20one&user_token=abc123&format=json', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add?game_id=12345&sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&username=player%20one&user_token=abc123&format=json', expect: 'no user' },
  { client: 'gj-unity-api 2.5.6, data-store/set by POST', url: '/api/game/v1_2/data-store/set?game_id=12345&format=json', post: 'key=save%201&data=hello%20world%20%26%20more', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set?game_id=12345&format=jsondatahello world & morekeysave 1', expect: 'stored' },
  { client: 'gj-unity-api 2.3.0 (v1_1 over gamejolt.com)', url: '/api/game/v1_1/scores/add?game_id=12345&sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&username=player%20one&user_token=abc123&format=json', hashed: 'https://gamejolt.com/api/game/v1_1/scores/add?game_id=12345&sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&username=player%20one&user_token=abc123&format=json', expect: 'no user' },
  { client: 'gj-unity-api 2.3.0, data-store/set with the data posted unsigned (v1_1)', url: '/api/game/v1_1/data-store/set?game_id=12345&key=save%201&format=json', post: 'data=hello+world+%26+more', hashed: 'https://gamejolt.com/api/game/v1_1/data-store/set?game_id=12345&key=save%201&format=json', expect: 'stored' },
  { client: 'GameMaker GMEXT-GameJolt 1.1.0', url: '/api/game/v1_2/scores/add?game_id=12345&username=Player%20One&user_token=abc123&table_id=5&score=1,234%20Points&sort=1234&extra_data=lvl=3&x', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add?game_id=12345&username=Player One&user_token=abc123&table_id=5&score=1,234 Points&sort=1234&extra_data=lvl=3&x', expect: 'no user' },
  { client: 'GameMaker GMEXT-GameJolt 1.1.0, data-store/set', url: '/api/game/v1_2/data-store/set/?game_id=12345&key=save%201&data=hello%20world%20&%20more', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set/?game_id=12345&key=save 1&data=hello world & more', expect: 'stored' },
  { client: 'Godot 4 IronBrandon (every value encoded, hashed so)', url: '/api/game/v1_2/scores/add/?game_id=12345&score=1%2C234%20Points&sort=1234&table_id=5&username=Player%20One&user_token=abc123', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add/?game_id=12345&score=1%2C234%20Points&sort=1234&table_id=5&username=Player%20One&user_token=abc123', expect: 'no user' },
  { client: 'Godot 3/4, data-store/set', url: '/api/game/v1_2/data-store/set/?game_id=12345&key=save%201&data=hello%20world%20%26%20more', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set/?game_id=12345&key=save%201&data=hello%20world%20%26%20more', expect: 'stored' },
  { client: 'HaxeFlixel FlxGameJolt (POST with an empty body, v1 over gamejolt.com)', url: '/api/game/v1/scores/add/?format=keypair&game_id=12345&score=1,234%20Points&sort=1234&username=Player%20One&user_token=abc123&extra_data=lvl=3&x&table_id=5', post: '', hashed: 'https://gamejolt.com/api/game/v1/scores/add/?format=keypair&game_id=12345&score=1,234 Points&sort=1234&username=Player One&user_token=abc123&extra_data=lvl=3&x&table_id=5', expect: 'no user' },
  { client: 'HaxeFlixel FlxGameJolt with SHA-1, data-store/set', url: '/api/game/v1/data-store/set/?format=keypair&key=save%201&data=hello%20world%20&%20more&game_id=12345', post: '', algorithm: 'sha1', hashed: 'https://gamejolt.com/api/game/v1/data-store/set/?format=keypair&key=save 1&data=hello world & more&game_id=12345', expect: 'stored' },
  { client: 'MausGames JS library', url: '/api/game/v1_2/scores/add/?sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&game_id=12345&format=json&username=Player%20One&user_token=abc123', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add/?sort=1234&score=1,234%20Points&table_id=5&extra_data=lvl=3&x&game_id=12345&format=json&username=Player%20One&user_token=abc123', expect: 'no user' },
  // Its body is not encoded: data with an & in it is cut there, here as at Game Jolt (whose signature then fails too), so the item here has none.
  { client: 'MausGames JS library, data-store/set with a raw body', url: '/api/game/v1_2/data-store/set/?key=save%201&game_id=12345&format=json', post: 'data=hello world, more', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set/?key=save%201&game_id=12345&format=jsondatahello world, more', expect: 'stored' },
  { client: 'Python gamejoltapi 0.0.3 (form encoding, keys sorted)', url: '/api/game/v1_2/scores/add/?extra_data=lvl%3D3%26x&game_id=12345&score=1%2C234+Points&sort=1234&table_id=5&user_token=abc123&username=Player+One', hashed: 'https://api.gamejolt.com/api/game/v1_2/scores/add/?extra_data=lvl%3D3%26x&game_id=12345&score=1%2C234+Points&sort=1234&table_id=5&user_token=abc123&username=Player+One', expect: 'no user' },
  { client: 'Python gamejoltapi 0.0.3, data-store/set', url: '/api/game/v1_2/data-store/set/?data=hello+world+%26+more&game_id=12345&key=save+1', hashed: 'https://api.gamejolt.com/api/game/v1_2/data-store/set/?data=hello+world+%26+more&game_id=12345&key=save+1', expect: 'stored' },
  { client: 'Python gamejolt 1 (SHA-1, v1 over http)', url: '/api/game/v1/scores/add/?format=json&game_id=12345&username=Player+One&user_token=abc123&sort=1234&score=1%2C234+Points&table_id=5', algorithm: 'sha1', hashed: 'http://api.gamejolt.com/api/game/v1/scores/add/?format=json&game_id=12345&username=Player+One&user_token=abc123&sort=1234&score=1%2C234+Points&table_id=5', expect: 'no user' },
  { client: 'Python gamejolt 1, data-store/set', url: '/api/game/v1/data-store/set/?format=json&game_id=12345&key=save+1&data=hello+world+%26+more', algorithm: 'sha1', hashed: 'http://api.gamejolt.com/api/game/v1/data-store/set/?format=json&game_id=12345&key=save+1&data=hello+world+%26+more', expect: 'stored' }
]

t.test('each client\'s own requests are taken, and none with a wrong key', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { gamejolt_game_id: 12345, private_key: KEY }))
  await app.syncRecordCache()
  for (const vector of VECTORS) {
    const signature = hash(vector.algorithm ?? 'md5', vector.hashed)
    const send = async (sign: string) => await app.inject({
      method: vector.post === undefined ? 'GET' : 'POST',
      url: `${vector.url}&signature=${sign}`,
      ...(vector.post === undefined ? {} : { payload: vector.post, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    })
    const answer = await send(signature)
    // keypair answers (FlxGameJolt asks for them) are read as their lines.
    const body = answer.body.startsWith('{') ? answer.json().response as Record<string, string> : Object.fromEntries(answer.body.split('\r\n').filter(line => line !== '').map(line => [line.slice(0, line.indexOf(':')), JSON.parse(line.slice(line.indexOf(':') + 1)) as string]))
    if (vector.expect === 'stored') t.same(body, { success: 'true' }, `${vector.client}: taken`)
    else if (vector.expect === 'fetched') t.same(body, { success: 'true', scores: [] }, `${vector.client}: answered`)
    else t.same(body, { success: 'false', message: NO_USER }, `${vector.client}: the signature holds (then no such user)`)
    const forged = await send(createHash(vector.algorithm ?? 'md5').update(`${vector.hashed}not-the-key`).digest('hex'))
    t.match(forged.body, /The signature you entered for the request is invalid\./, `${vector.client}: with another key, refused`)
  }
  // What the data-store vectors stored, read back as Game Jolt answers it.
  const fetched = await app.inject({ method: 'GET', url: `/api/game/v1_2/data-store/?game_id=12345&key=save%201&signature=${hash('md5', 'https://api.gamejolt.com/api/game/v1_2/data-store/?game_id=12345&key=save%201')}` })
  t.equal(fetched.json().response.success, 'true', 'an item the clients set is there')
})
