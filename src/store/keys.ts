/**
 * The Redis key layout, written down once. Every key of one game carries the
 * hash tag `{game:ID}`, so a game's keys share one Redis Cluster slot and one
 * Lua script may touch all of them. Records looked up by their own id (an API
 * key, a user, a session) carry their own tag.
 *
 * game_id and usernames are restricted to `A-Z a-z 0-9 _ - .` before they
 * reach a key name; an api_key is checked against API_KEY_PATTERN first.
 */
const PREFIX = 'rank'

/**
 * A board's entries (and metas) are spread over this many hashes by a hash
 * of the player name, so each hash stays small enough for Redis's compact
 * listpack encoding (redis.conf: hash-max-listpack-entries 512) up to about
 * two million players per game (docs/decisions/0062-hot-path-choices-measured.md).
 */
export const ENTRY_BUCKETS = 4096

/** FNV-1a over the UTF-8 bytes of the name: stable across processes and versions. */
export function entryBucket (player: string): number {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(player, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash % ENTRY_BUCKETS
}

function entriesBucket (gameId: string, bucket: number, scope: string): string {
  return `${PREFIX}:{game:${gameId}}:${scope}entries:${bucket}`
}

/** The digits of the achievement time (ms) that begin a board member (store/board-format.ts). */
export const TIME_DIGITS = 13

/**
 * Which of a game's boards a key belongs to, as a part of its name: '' for
 * the first season of the all-time board (the keys of v1), `season:N:` for a
 * later season, `daily:2026-11-23:` (`weekly:2026-W48:`, `monthly:2026-11:`)
 * for a calendar period. Every board of a game has the same structure
 * (a ZSET and its entries buckets) in the game's slot.
 */
/** A named board's scope, in front of its season's or period's. */
const namedScope = (boardId: string): string => `board:${boardId}:`

export const boardScopes = {
  season: (season: number): string => season <= 1 ? '' : `season:${season}:`,
  period: (kind: string, periodId: string): string => `${kind}:${periodId}:`,
  /** A named board's scope, in front of its season's or period's (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): `board:level-1:`, `board:level-1:daily:2026-11-23:`. */
  named: namedScope,
  /** The scope every key of a board begins with: a named board's own (named, above); nothing for the game's own. */
  of: (board: { named?: { board_id: string } }): string => board.named === undefined ? '' : namedScope(board.named.board_id)
} as const

export const keys = {
  /**
   * HASH: name, developer, approved ("1"/"0"), created_at (ISO), max_entries,
   * max_meta_bytes; when set: order, periods (comma list), timezone,
   * keep_periods, season (the current one's number) and season_started_at;
   * the fair-play settings; webhooks (their count, which turns the outbox
   * on); events_dropped (events a full outbox could not take, ever) and
   * events_dropped_told (how many of them a dispatcher has reported).
   */
  game: (gameId: string) => `${PREFIX}:{game:${gameId}}:game`,
  /**
   * ZSET of the visible entries of a board. score = -best (board order desc)
   * or best (asc), member = 13-digit achievement time in ms + player_name;
   * see store/board-format.ts.
   */
  board: (gameId: string, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}board`,
  /** HASH player_name -> "best|ms" of the player's bucket: every stored best, hidden ones included. */
  entries: (gameId: string, player: string, scope = '') => entriesBucket(gameId, entryBucket(player), scope),
  /** The entries hash of one bucket (0 to ENTRY_BUCKETS - 1), for a walk over every entry of a board. */
  entriesBucket: (gameId: string, bucket: number, scope = '') => entriesBucket(gameId, bucket, scope),
  /** HASH player_name -> meta text sent with the stored best, in the player's bucket (seasons only: periods keep no meta). */
  meta: (gameId: string, player: string, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}meta:${entryBucket(player)}`,
  /** The meta hash of one bucket, for a walk over a board. */
  metaBucket: (gameId: string, bucket: number, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}meta:${bucket}`,
  /**
   * HASH player_name -> "ms|score|verified seconds", in the player's bucket:
   * the run a stored best came from (docs/interface.md#runs), written only
   * by a score with a run. It speaks for the entry while its ms and score
   * are the entry's own (a later best without a run leaves it behind,
   * answering nothing, even in the same ms), so a submit without a run
   * never touches it; erasing or deleting the entry deletes it.
   */
  entryRun: (gameId: string, player: string, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}entry-runs:${entryBucket(player)}`,
  /** The entry-runs hash of one bucket, for a walk over a board. */
  entryRunBucket: (gameId: string, bucket: number, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}entry-runs:${bucket}`,
  /**
   * HASH player_name -> "ms|score|text", in the player's bucket: Game Jolt's
   * text fields sent with a stored best (`text`: JSON of its `score` text
   * and `extra_data`, docs/gamejolt.md#scores), written only by a Game Jolt
   * scores/add. As entryRun: it speaks for the entry while its ms and score
   * are the entry's own, so no other submit touches it.
   */
  gamejoltText: (gameId: string, player: string, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}gamejolt-text:${entryBucket(player)}`,
  /** The gamejolt-text hash of one bucket, for a walk over a board. */
  gamejoltTextBucket: (gameId: string, bucket: number, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}gamejolt-text:${bucket}`,
  /** HASH board id -> a named board's settings, as JSON (rules/boards.ts NamedBoard; store/named-boards.ts). */
  boards: (gameId: string) => `${PREFIX}:{game:${gameId}}:boards`,
  /** HASH achievement id -> its settings, as JSON (rules/achievements.ts Achievement; store/achievements.ts). */
  achievements: (gameId: string) => `${PREFIX}:{game:${gameId}}:achievements`,
  /** STRING: an achievement's icon, the image's bytes (its type and hash are in its settings). */
  achievementIcon: (gameId: string, achievementId: string) => `${PREFIX}:{game:${gameId}}:achievement-icon:${achievementId}`,
  /**
   * HASH board ('default' or a named board's id) -> the thresholds on it, as
   * the submit script reads them: "<id> >= <value>" or "<id> <= <value>",
   * one per line; made again from keys.achievements by each write of them.
   */
  achievementRules: (gameId: string) => `${PREFIX}:{game:${gameId}}:achievement-rules`,
  /** HASH player_name -> what the player unlocked: "<id> <ms>" pairs, one per line ('' for a player with none yet), in the player's bucket. */
  achieved: (gameId: string, player: string) => `${PREFIX}:{game:${gameId}}:achieved:${entryBucket(player)}`,
  /** The achieved hash of one bucket, for a walk over every player. */
  achievedBucket: (gameId: string, bucket: number) => `${PREFIX}:{game:${gameId}}:achieved:${bucket}`,
  /** HASH achievement id -> how many players unlocked it; '#players' -> how many players the game's achievements know (rarity's denominator). */
  achievementCounts: (gameId: string) => `${PREFIX}:{game:${gameId}}:achievement-counts`,
  /** HASH season number -> "started_at|ended_at" (ISO) of each closed season. */
  seasons: (gameId: string) => `${PREFIX}:{game:${gameId}}:seasons`,
  /**
   * STRING: the version of every board of the game, bumped by each script
   * that writes one (lua/includes/boards-changed.lua); a top page cached in a
   * process is served again only while it is unchanged (store/top-cache.ts).
   */
  boardsVersion: (gameId: string) => `${PREFIX}:{game:${gameId}}:boards-version`,
  /** SET of player names hidden on this board only. */
  hiddenPlayers: (gameId: string) => `${PREFIX}:{game:${gameId}}:hidden`,
  /**
   * SET of hidden users, copied into every board's slot (from hiddenUsers()
   * when a game is made, by the hide walk afterwards), so the submit script
   * decides visibility atomically without looking outside its slot.
   */
  boardHiddenUsers: (gameId: string) => `${PREFIX}:{game:${gameId}}:hidden-users`,
  /** HASH entries, meta_bytes: what a season stores, kept by the submit and delete scripts (the caps max_entries, max_meta_bytes). */
  usage: (gameId: string, scope = '') => `${PREFIX}:{game:${gameId}}:${scope}usage`,
  /**
   * STRING, one per accepted signed submit, until its ts leaves the ±300 s
   * window: a replay of the same request is answered without storing
   * anything. Named by the first 128 bits of the signature; a submit of
   * several boards' scores keeps one per board (`board`: its id, or default).
   * Its value is the game's deleted_at when it was accepted ('held' for a
   * held score): a deletion of the player's since makes its replay stale.
   */
  seenSubmission: (gameId: string, sign: string, board?: string) => `${PREFIX}:{game:${gameId}}:seen:${sign.slice(0, 32)}${board === undefined ? '' : `:${board}`}`,
  /**
   * STRING: when (ms, lua/includes/deletions.lua) an operator deleted this
   * player's entry, kept as long as a submit signed before then could still
   * arrive; such submits are refused, and so are replays of those accepted
   * before it: a deleted entry cannot come back from old requests.
   */
  deletedPlayer: (gameId: string, player: string) => `${PREFIX}:{game:${gameId}}:deleted:${player}`,
  /**
   * HASH held id -> a score held for review (fair play), as JSON:
   * player_name, score, meta, submitted_at (ms), season, rule, status
   * (pending, approved, rejected, superseded), decided_at (ms), note.
   */
  review: (gameId: string) => `${PREFIX}:{game:${gameId}}:review`,
  /** ZSET of the held ids pending review, scored by when each was submitted (ms). */
  reviewPending: (gameId: string) => `${PREFIX}:{game:${gameId}}:review:pending`,
  /** ZSET of the decided held ids, scored by when each was decided (ms); the oldest past a bound are forgotten. */
  reviewDecided: (gameId: string) => `${PREFIX}:{game:${gameId}}:review:decided`,
  /** HASH player_name -> the player's pending held id: one pending score per player. */
  reviewPlayers: (gameId: string) => `${PREFIX}:{game:${gameId}}:review:players`,
  /** STRING: the last held id issued for the game. */
  reviewSequence: (gameId: string) => `${PREFIX}:{game:${gameId}}:review:seq`,
  /**
   * STREAM: the game's outbox (store/events.ts), written by the scripts
   * that make a change while the game has webhooks; entries: type, data
   * (JSON). Its consumer group `webhooks` turns each entry into
   * deliveries; the dispatcher trims what the group has read to about
   * EVENTS_KEPT entries, and the writers stop at OUTBOX_MAX (store/events.ts).
   */
  events: (gameId: string) => `${PREFIX}:{game:${gameId}}:events`,
  /**
   * HASH webhook_id -> a webhook of the game, as JSON: url, events (a list,
   * or ["*"] for every kind), secret (whsec_…), created_at. The game's record
   * counts them in its field `webhooks`, which turns its outbox on.
   */
  webhooks: (gameId: string) => `${PREFIX}:{game:${gameId}}:webhooks`,
  /** HASH webhook_id -> how its receiver answers, as JSON (ms): failing_since, last_attempt_at, last_status, last_error; written as attempts end. */
  webhookHealth: (gameId: string) => `${PREFIX}:{game:${gameId}}:webhooks:health`,
  /** HASH delivery_id -> a delivery of an event to a webhook, as JSON (store/webhooks.ts). */
  deliveries: (gameId: string) => `${PREFIX}:{game:${gameId}}:deliveries`,
  /** ZSET of a webhook's pending deliveries, scored by when each is next due (ms): a claimed one is due again when its lease ends. */
  deliveriesDue: (gameId: string, webhookId: string) => `${PREFIX}:{game:${gameId}}:deliveries:due:${webhookId}`,
  /** ZSET of a webhook's finished deliveries (delivered or dead), scored by when each finished (ms); the oldest past a bound are forgotten. */
  deliveriesDone: (gameId: string, webhookId: string) => `${PREFIX}:{game:${gameId}}:deliveries:done:${webhookId}`,
  /** STRING: the last delivery id issued for the game. */
  deliverySequence: (gameId: string) => `${PREFIX}:{game:${gameId}}:deliveries:seq`,
  /** STRING: set once a period's period.closed is in the outbox, so instances write it once. */
  periodClosed: (gameId: string, kind: string, periodId: string) => `${PREFIX}:{game:${gameId}}:closed:${kind}:${periodId}`,
  /** SET of the game ids that have webhooks: the games the dispatchers read. */
  webhookGames: () => `${PREFIX}:webhook-games`,
  /**
   * Sharded pub/sub channel (SPUBLISH) in the game's slot: a board's scope
   * ('' for the first season, 'season' when one closed) whenever its top
   * changed, for the live boards of every instance (src/live/).
   */
  live: (gameId: string) => `${PREFIX}:{game:${gameId}}:live`,
  /**
   * ZSETs of the live streams open for one subject, each scored by when its
   * lease ends (ms), over every game and instance: an API key's, and the
   * share of one client address among them (both in the key's slot, so one
   * script takes a place in both); a client address's on the play page; an
   * operator token's. `address` is rate-limits' form (IPv4, or an IPv6 /64).
   */
  keyLiveStreams: (apiKey: string) => `${PREFIX}:key:{${apiKey}}:live-streams`,
  keyAddressLiveStreams: (apiKey: string, address: string) => `${PREFIX}:key:{${apiKey}}:live-streams:${address}`,
  addressLiveStreams: (address: string) => `${PREFIX}:address:{${address}}:live-streams`,
  operatorLiveStreams: (name: string) => `${PREFIX}:operator:{${name}}:live-streams`,
  /**
   * HASH run id -> "started|expires|verified|credited|used|key|reports|timeline":
   * a player's runs in the game (docs/interface.md#runs; lua/includes/runs.lua),
   * at most MAX_OPEN_RUNS, expiring with the last of them. Runs started with
   * an API key (`byKey`) and by the logged-in user's session are two hashes:
   * each is credited and taken only in its own mode, so whoever holds a
   * game's public key can neither close a user's session runs nor credit a
   * run through both modes' clocks.
   */
  playerRuns: (gameId: string, player: string, byKey = false) => `${PREFIX}:{game:${gameId}}:${byKey ? 'key-runs' : 'runs'}:${player}`,
  /**
   * HASH username -> "last ping ms|run id" (run id '' on a game without
   * runs): each user's open Game Jolt session in the game
   * (docs/gamejolt.md#sessions); one past 120 s without a ping is closed
   * when next seen.
   */
  gamejoltSessions: (gameId: string) => `${PREFIX}:{game:${gameId}}:gamejolt-sessions`,
  /** STRING: the runs a player started in the game this minute, in one mode (expires with the minute). */
  runStarts: (gameId: string, player: string, byKey = false) => `${PREFIX}:{game:${gameId}}:${byKey ? 'key-run-starts' : 'run-starts'}:${player}`,
  /**
   * HASH gamejolt_game_id, private_key: the game's Game Jolt API, when an
   * operator turned it on (docs/gamejolt.md); no hash, no API.
   */
  gamejolt: (gameId: string) => `${PREFIX}:{game:${gameId}}:gamejolt`,
  /**
   * HASH item key -> data: a game's Game Jolt data store, its global items
   * (no owner) or one user's (docs/gamejolt.md#data-store).
   */
  gamejoltData: (gameId: string, owner?: string) => `${PREFIX}:{game:${gameId}}:gamejolt-data${owner === undefined ? '' : `:user:${owner}`}`,
  /** HASH bytes, items: what a game's Game Jolt data store holds, over every owner, kept by lua/gamejolt-data.lua. */
  gamejoltDataUsage: (gameId: string) => `${PREFIX}:{game:${gameId}}:gamejolt-data-usage`,
  /** HASH username -> how many items their store holds: the users with items, for an operator's listing (lua/gamejolt-data.lua keeps it). */
  gamejoltDataOwners: (gameId: string) => `${PREFIX}:{game:${gameId}}:gamejolt-data-owners`,
  /** STRING: the game_id whose Game Jolt API answers to this integer game id (in its own slot, like an API key). */
  gamejoltGame: (gamejoltGameId: number) => `${PREFIX}:gamejolt:{${gamejoltGameId}}`,
  /** STRING: the last Game Jolt game id made for a game that was given none (ids taken by hand are skipped). */
  gamejoltSequence: () => `${PREFIX}:gamejolt:seq`,
  /** SET of the api_keys issued for this game. */
  gameKeys: (gameId: string) => `${PREFIX}:{game:${gameId}}:keys`,
  /** HASH user -> stars (1..10) given to this game. */
  ratings: (gameId: string) => `${PREFIX}:{game:${gameId}}:ratings`,
  /**
   * HASH sum, count, and s1..s10 (how many ratings of each value); wsec and
   * wsum, the weights of the ratings (their raters' play, counted up to the
   * game's full weight, in seconds) and the weighted sum of their stars;
   * `weights` 2 once those are kept (1: kept by the version before, counted
   * again once) (docs/ratings.md). Kept with every rating change and every
   * play that moves a weight, so no figure scans.
   */
  ratingStats: (gameId: string) => `${PREFIX}:{game:${gameId}}:rating`,
  /** HASH user -> "stars|weight at rating (s)|play at rating (s)|rated at (ms)": what each rating was given with (docs/ratings.md). */
  ratingPlay: (gameId: string) => `${PREFIX}:{game:${gameId}}:rating-play`,
  /** ZSET user by when they rated (ms): the operator's listing, newest first. */
  ratingTimes: (gameId: string) => `${PREFIX}:{game:${gameId}}:rating-times`,
  /** HASH UTC day (YYYY-MM-DD) -> "weighted|avg|count": the game's rating figures as the games index last wrote them that day (a field a day), for the console's chart. */
  ratingDays: (gameId: string) => `${PREFIX}:{game:${gameId}}:rating-days`,
  /** HASH total, players (the people credited any play), u:<user> (seconds), c:<user> (credited-until, ms), r:<user> (the stars of their rating while it weighs less than fully). */
  playtime: (gameId: string) => `${PREFIX}:{game:${gameId}}:playtime`,
  /**
   * The activity counters behind the console's charts (store/activity.ts), by
   * UTC time bucket, each expiring on its own. HASH minute of the hour (0..59)
   * -> submissions, for the hour that begins at `hour` (ms / 3,600,000).
   */
  activityMinutes: (gameId: string, hour: number) => `${PREFIX}:{game:${gameId}}:activity:m:${hour}`,
  /** HASH submissions, playtime (seconds) of one UTC day (YYYY-MM-DD). */
  activityDay: (gameId: string, day: string) => `${PREFIX}:{game:${gameId}}:activity:d:${day}`,
  /** HYPERLOGLOG of the players who submitted or were credited play time on one UTC day. */
  activityPlayers: (gameId: string, day: string) => `${PREFIX}:{game:${gameId}}:activity:p:${day}`,
  /**
   * STREAM: the game's audit log (store/audit.ts): every operator write to
   * the game's records, field `e` the entry as JSON; entries older than
   * AUDIT_RETENTION_DAYS are trimmed as new ones arrive.
   */
  gameAudit: (gameId: string) => `${PREFIX}:{game:${gameId}}:audit`,
  /** STREAM: the audit log of every operator write, the same entries as the games' logs and those of users and sessions. */
  audit: () => `${PREFIX}:audit`,
  /** SET of every game id (operators list games and walk boards with it). */
  games: () => `${PREFIX}:games`,
  /** ZSET of every game id, each scored 0: the games in id order for listings (store/name-index.ts). */
  gameIndex: () => `${PREFIX}:games:by-id`,
  /** HASH: game_id, secret, revoked ("1"/"0"), created_at. */
  apiKey: (apiKey: string) => `${PREFIX}:key:{${apiKey}}`,
  /**
   * HASH: password (scrypt), is_admin, hidden ("1"/"0"), created_at,
   * session_epoch (raised to end every session); guest_until (ms) for a
   * guest; identities (JSON, the platform identities linked to the user);
   * user_id (an integer, given the first time one is needed) and game_token
   * (what Game Jolt's clients send as user_token, once the user has one).
   */
  user: (username: string) => `${PREFIX}:user:{${username}}`,
  /**
   * ZSET of a user's session ids, scored by when each expires (ms), in the
   * user's slot: an operator lists and ends a user's sessions through it.
   */
  userSessions: (username: string) => `${PREFIX}:user:{${username}}:sessions`,
  /** SET of the game ids a guest played (session actions), in the guest's slot: what a claim or the guest's expiry visits. */
  guestGames: (username: string) => `${PREFIX}:user:{${username}}:games`,
  /** ZSET of every guest, scored by when it ends (ms): the sweep erases the guests whose time is up. */
  guests: () => `${PREFIX}:guests`,
  /** STRING: the username a platform's identity (store/users.ts identityDigest of method, issuer, subject) is linked to. */
  identity: (digest: string) => `${PREFIX}:identity:{${digest}}`,
  /** STRING "1" until a platform's sign-in token expires, by a digest of its header and payload (what its signature covers): it was spent (store/signin-flows.ts). */
  spentSigninToken: (digest: string) => `${PREFIX}:signin:token:{${digest}}`,
  /** STRING, for 10 minutes: an OpenID Connect sign-in under way, by its state (store/signin-flows.ts). */
  signinFlow: (state: string) => `${PREFIX}:signin:flow:{${state}}`,
  /** SET of every hidden username. */
  hiddenUsers: () => `${PREFIX}:hidden-users`,
  /** SET of every username. */
  users: () => `${PREFIX}:users`,
  /** HASH user_id -> the username that has it: Game Jolt's clients name users by integer too (docs/gamejolt.md#players-and-tokens). */
  userIds: () => `${PREFIX}:users:ids`,
  /** STRING: the last user_id given out. */
  userIdSequence: () => `${PREFIX}:users:ids:seq`,
  /** ZSET of every username, each scored 0: the users in name order for listings (store/name-index.ts). */
  userIndex: () => `${PREFIX}:users:by-name`,
  /** HASH username folded to lowercase -> the user who has it: one name whatever its letter case (store/username-folds.ts). */
  usernameFolds: () => `${PREFIX}:users:folded`,
  /** STRING "1" once the users made before usernameFolds existed were copied into it. */
  usernameFoldsFilled: () => `${PREFIX}:users:folded:filled`,
  /** STRING `<session epoch>:<username>` (a bare username before epochs), with the session's TTL. */
  session: (sessionId: string) => `${PREFIX}:session:{${sessionId}}`,
  /** Pub/sub channel: `<kind>:<id>` of a changed key, game, user or session record. */
  invalidations: () => `${PREFIX}:invalidate`,
  /** STRING: the fixed-window counter of one limit (plugins/app/rate-limit.ts) for one subject, in its window. */
  rateLimitCounter: (limit: string, subject: string) => `${PREFIX}:rl:${limit}:${subject}`,
  /** STRING: the HMAC secret that signs sign-up challenges, made by the first instance that needs it (store/signup-challenges.ts). */
  signupChallengeSecret: () => `${PREFIX}:signup:challenge-secret`,
  /** STRING "1" while a solved sign-up challenge (by its nonce) may not be used again: until it expires. */
  usedSignupChallenge: (nonce: string) => `${PREFIX}:signup:used:${nonce}`,
  /** The rate-limit subject of a logged-in user. */
  userLimitSubject: (username: string) => `user:${username}`,
  /**
   * The rate-limit subject of an API key: in its
   * game's slot, so a cluster keeps a game's counters beside its board.
   * With an address: the per-(key, address) limit; without: the key's total.
   */
  apiKeyLimitSubject: (gameId: string, apiKey: string, address?: string) => `{game:${gameId}}:key:${apiKey}${address === undefined ? '' : `:${address}`}`,
  /** The rate-limit subject of Game Jolt's API for one game and client address, in the game's slot (docs/gamejolt.md#check-order). */
  gamejoltLimitSubject: (gameId: string, address: string) => `{game:${gameId}}:gamejolt:${address}`,
  /** The rate-limit subject of GET /api/games for one client address, in the games index's slot, so its one script call counts it. */
  gamesListLimitSubject: (address: string) => `{platform}:games:${address}`,
  /*
   * The games index (store/games-index.ts, docs/ratings.md#the-games-list):
   * every listed game's figures, kept ranked in one slot of its own, written
   * by each instance at most once a GAMES_PUSH_MS and read by one script call.
   */
  /** ZSET game id by its place in one sort (the lowest first): -weighted, -recent play, -players, -created_at (ms). */
  gamesRanked: (sort: string) => `${PREFIX}:{platform}:games:${sort}`,
  /** HASH game id -> its card (JSON: what GET /api/games answers of it). */
  gamesCards: () => `${PREFIX}:{platform}:games:cards`,
  /** HASH game id -> "weight|weight × stars" (full-weight units): its part of the platform's mean. */
  gamesWeights: () => `${PREFIX}:{platform}:games:weights`,
  /** HASH version (raised by every write), w and ws (the platform's sums of weights and weighted stars), snap:<sort> ("<version>|<made at ms>": the newest order kept for walks). */
  gamesMeta: () => `${PREFIX}:{platform}:games:meta`,
  /** ZSET: a copy of one sort's order at `version`, the order a walk of GET /api/games keeps (expires). */
  gamesSnapshot: (sort: string, version: number) => `${PREFIX}:{platform}:games:${sort}:at:${version}`,
  /** SET of game ids whose figures an operator's write or a script off the hot path moved (erasure, a claim, a CLI command): the next instance to write the index takes them. */
  gamesChanged: () => `${PREFIX}:{platform}:games:changed`,
  /** STRING: held by the instance that counts every game's figures again (hourly), so only one does. */
  gamesRebuild: () => `${PREFIX}:{platform}:games:rebuild`
} as const

/** The keys a review decision touches, in the order the review scripts take them. */
export function reviewKeys (gameId: string): string[] {
  return [keys.review(gameId), keys.reviewPending(gameId), keys.reviewDecided(gameId), keys.reviewPlayers(gameId)]
}

/** What an api_key may look like before it is used in a key name. */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

/** What a session id may look like (43 base64url characters are issued). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{20,128}$/

/**
 * The keys of a game that scripts called with a packed call name for
 * themselves (as BullMQ's scripts do), from the game id and the call's
 * parts: each a Lua expression of these parameters, made from `keys` above
 * by `luaKeyExpression`, so the layout is still written once. `bucket` is the
 * player's entries bucket (entryBucket), `sign` the signature's first 32
 * characters. Every one is in the game's slot.
 */
const SCRIPT_KEYS = {
  game: { params: ['game'], key: (p: KeyParts) => keys.game(p.game) },
  board: { params: ['game', 'scope'], key: (p: KeyParts) => keys.board(p.game, p.scope) },
  entries: { params: ['game', 'bucket', 'scope'], key: (p: KeyParts) => keys.entriesBucket(p.game, p.bucket, p.scope) },
  meta: { params: ['game', 'bucket', 'scope'], key: (p: KeyParts) => keys.metaBucket(p.game, p.bucket, p.scope) },
  hidden: { params: ['game'], key: (p: KeyParts) => keys.hiddenPlayers(p.game) },
  hiddenUsers: { params: ['game'], key: (p: KeyParts) => keys.boardHiddenUsers(p.game) },
  usage: { params: ['game', 'scope'], key: (p: KeyParts) => keys.usage(p.game, p.scope) },
  seen: { params: ['game', 'sign'], key: (p: KeyParts) => keys.seenSubmission(p.game, p.sign) },
  seenOnBoard: { params: ['game', 'sign', 'board'], key: (p: KeyParts) => keys.seenSubmission(p.game, p.sign, p.board) },
  deleted: { params: ['game', 'player'], key: (p: KeyParts) => keys.deletedPlayer(p.game, p.player) },
  live: { params: ['game'], key: (p: KeyParts) => keys.live(p.game) },
  boardsVersion: { params: ['game'], key: (p: KeyParts) => keys.boardsVersion(p.game) },
  review: { params: ['game'], key: (p: KeyParts) => keys.review(p.game) },
  reviewPending: { params: ['game'], key: (p: KeyParts) => keys.reviewPending(p.game) },
  reviewDecided: { params: ['game'], key: (p: KeyParts) => keys.reviewDecided(p.game) },
  reviewPlayers: { params: ['game'], key: (p: KeyParts) => keys.reviewPlayers(p.game) },
  reviewSequence: { params: ['game'], key: (p: KeyParts) => keys.reviewSequence(p.game) },
  events: { params: ['game'], key: (p: KeyParts) => keys.events(p.game) },
  boards: { params: ['game'], key: (p: KeyParts) => keys.boards(p.game) },
  achievementRules: { params: ['game'], key: (p: KeyParts) => keys.achievementRules(p.game) },
  achieved: { params: ['game', 'bucket'], key: (p: KeyParts) => keys.achievedBucket(p.game, p.bucket) },
  achievementCounts: { params: ['game'], key: (p: KeyParts) => keys.achievementCounts(p.game) },
  runs: { params: ['game', 'player'], key: (p: KeyParts) => keys.playerRuns(p.game, p.player) },
  keyRuns: { params: ['game', 'player'], key: (p: KeyParts) => keys.playerRuns(p.game, p.player, true) },
  entryRun: { params: ['game', 'bucket', 'scope'], key: (p: KeyParts) => keys.entryRunBucket(p.game, p.bucket, p.scope) },
  gamejoltText: { params: ['game', 'bucket', 'scope'], key: (p: KeyParts) => keys.gamejoltTextBucket(p.game, p.bucket, p.scope) }
} as const

interface KeyParts { game: string, scope: string, bucket: number, player: string, sign: string, board: string }

/** Stand-ins for each parameter, found again in the key each makes (no key name holds these characters or this number). */
const STAND_INS = { game: '\u0001', scope: '\u0002', bucket: 987_654_321, player: '\u0003', sign: '\u0004', board: '\u0005' } as const

/**
 * A key of SCRIPT_KEYS as a Lua expression of the arguments given (Lua
 * expressions, in the order of its params): the concatenation of the key's
 * fixed text and its parts, e.g. `KEY.board(game, scope)` is
 * `('rank:{game:' .. game .. '}:' .. scope .. 'board')`. The loader writes it
 * in place of each `KEY.<name>(...)` of a script that has a `--- @keys`
 * line (script-loader.ts): no function to make on every call.
 */
export function luaKeyExpression (name: string, args: readonly string[]): string {
  if (!Object.hasOwn(SCRIPT_KEYS, name)) throw new Error(`KEY.${name}: keys.ts names no such key for scripts (SCRIPT_KEYS)`)
  const { params, key } = SCRIPT_KEYS[name as keyof typeof SCRIPT_KEYS]
  if (args.length !== params.length) throw new Error(`KEY.${name} takes ${params.join(', ')}, not ${args.length} argument(s)`)
  let parts = [key(STAND_INS)]
  params.forEach((param, i) => {
    const standIn = String(STAND_INS[param])
    parts = parts.flatMap(part => part.startsWith('\u0000') ? [part] : part.split(standIn).flatMap((text, j) => j === 0 ? [text] : [`\u0000${args[i] as string}`, text]))
  })
  return `(${parts.filter(part => part !== '').map(part => {
    if (part.startsWith('\u0000')) return part.slice(1)
    if (!/^[A-Za-z0-9_{}:.-]+$/.test(part)) throw new Error(`keys.${name}: its fixed text ${JSON.stringify(part)} is not plain`)
    return `'${part}'`
  }).join(' .. ')})`
}
