/**
 * The operator CLI's help: every command and its flags, printed by --help
 * and after a command line it cannot run, under the name it was run by:
 * `npm run cli --` in a checkout, `ranking-admin` in the container.
 */
export const usage = (name = 'npm run cli --'): string => `Usage: ${name} <command> [arguments] [--flag value ...]

Listings (--limit N, from 1 to 100; --cursor C goes on from the next_cursor a page printed):
  games list [--prefix P] [--approved true|false]
  games get <game_id>                   the game and its figures (entries, players, ratings, play time)
  games stats <game_id> [--minutes N] [--days N]
                                        submissions per minute, per UTC day with active players and
                                        play time, and the ratings by value (the console's charts)
  games scores <game_id> [--buckets N] [--period KIND] [--period_id ID] [--season_id N]
                                        how the board's scores spread over equal ranges
  keys list <game_id> [--revoked true|false]
  keys get <api_key>
  users list [--prefix P] [--hidden true|false] [--is_admin true|false] [--guest true|false]
  users get <username>
  players list <game_id> [--prefix P] [--board ID] [--period daily|weekly|monthly] [--period_id ID] [--season_id N]
                                        the board in board order, hidden entries marked; or by name prefix
  audit list [--game_id ID] [--action game.update|game.] [--actor NAME]
                                        the audit log of operator writes, newest first

Games and keys:
  games create <game_id> [--name TEXT] [--developer USERNAME] [--approved true|false]
               [--max_entries N] [--max_meta_bytes N] [--order desc|asc]
               [--periods daily,weekly,monthly] [--timezone ZONE] [--keep_periods N]
               [--score_min N] [--score_max N] [--review_above N] [--review_below N]
               [--review_factor X] [--notify_top N]     (default for a number clears it;
                                         a negative one goes after =: --score_min=-100)
               [--guests off|listed|unlisted]
               [--runs off|optional|required] [--min_run_seconds N] [--max_score_rate X]
               [--implausible hold|refuse] [--run_ttl_s N] [--submit_run off|on]
               [--rating_full_weight_seconds N] [--rating_min_play_seconds N] [--listed true|false]
               [--score_format integer|decimal|time] [--score_decimals N] [--score_unit TEXT]
                                        how pages show the scores (the API keeps them raw)
  games update <game_id> (the same flags)
  seasons close <game_id>               archives the all-time board's season; an empty one begins
  seasons list <game_id>
  keys create <game_id> [--rate_limit N]
                                        prints api_key and api_secret (the secret is shown once)
  keys update <api_key> --rate_limit N|default
                                        this key's limit per address and window (default: RATE_LIMIT_MAX)
  keys revoke <api_key>

Named boards (beside the game's own; up to 1000 a game):
  boards create <game_id> <board_id> [--name TEXT] [--order desc|asc] [--operator best|latest|sum]
               [--periods daily,weekly,monthly] [--score_min N] [--score_max N]
               [--review_above N] [--review_below N] [--review_factor X]
               [--score_format integer|decimal|time] [--score_decimals N] [--score_unit TEXT]
               [--gamejolt_id N]        its table id in Game Jolt's API (default: made of its id)
  boards update <game_id> <board_id> (the same flags) [--archived true|false]
                                        order and operator change only while the board is empty
  boards list <game_id>
  boards get <game_id> <board_id>
  boards delete <game_id> <board_id>    the board and every entry of it (cannot be undone)

Fair play (scores held for review):
  review list <game_id> [--status pending|decided] [--limit N] [--offset N]
  review approve <game_id> <held_id> [--note TEXT]
                                        puts the score on the boards as of when it was submitted
  review reject <game_id> <held_id> [--note TEXT] [--hide true|false]

Ratings (weighted by the raters' play, docs/ratings.md):
  ratings list <game_id> [--stars N] [--max_playtime_seconds N] [--limit N] [--cursor C]
                                        newest first: stars, the rater's play when they rated and now
  ratings remove <game_id> <username>  removes a rating; every figure follows (audited)
  ratings export <game_id> [--format ndjson|csv] [--stars N] [--max_playtime_seconds N]   (to standard output)

Game Jolt's API (docs/gamejolt.md):
  gamejolt get <game_id>                its Game Jolt game id and private key (a secret)
  gamejolt set <game_id> [--gamejolt_game_id N] [--private_key TEXT] [--primary_table_id N]
                                        turns it on, or changes the id or key (omitted: kept id, new key)
      [--item_bytes N] [--items_per_user N] [--items_per_game N] [--game_bytes N]
                                        the data store's limits (omitted: kept)
  gamejolt off <game_id>                the id and key stop working at once
  gamejolt data <game_id>               its data store: usage, limits, whose stores hold items
  gamejolt items <game_id> [--owner USERNAME] [--limit N] [--cursor C]
                                        a store's items (keys and sizes); no owner: the global store
  gamejolt item <game_id> <key> [--owner USERNAME]
                                        one item with its data
  gamejolt remove-item <game_id> <key> [--owner USERNAME]
  users export <username>               everything kept about the user, game by game (saves included)
  users game-token <username>           a new game token (user_token) for the user; the old one stops

Webhooks and events (delivered by the running service):
  webhooks create <game_id> --url URL [--events score.best,board.first,...|*] [--description TEXT]
                                        prints the webhook and its signing secret (shown once)
  webhooks list <game_id>
  webhooks delete <game_id> <webhook_id>
  webhooks test <game_id> <webhook_id>  sends a webhook.test event to that webhook
  webhooks deliveries <game_id> <webhook_id> [--status done|pending] [--limit N] [--offset N]
  webhooks redeliver <game_id> <webhook_id> <delivery_id>
  events list <game_id> [--limit N] [--offset N]
                                        the newest events of the game's outbox

Users and sessions:
  users create <username> [--password-stdin | --password TEXT] [--is_admin true|false] [--hidden true|false]
  users update <username> [--password-stdin | --password TEXT] [--is_admin true|false] [--hidden true|false]
  sessions create <username>            a login session for a platform with its own login
  sessions delete [--] <session_id>      (-- before an id that begins with -)
  sessions list <username> [--limit N] [--cursor C]
                                        when each of the user's sessions expires
  sessions end <username>               logs the user out everywhere
  (A new password, users update --password..., also ends the user's sessions.)

Achievements (a game's; an icon is a PNG, JPEG, GIF or WebP file of at most 64 KiB):
  achievements list <game_id>
  achievements get <game_id> <achievement_id>
  achievements create <game_id> <achievement_id> [--name N] [--description D] [--points 0-1000] [--hidden true|false]
                      [--min_run_seconds N]   the verified play of the run an unlock by the game must carry
                      [--difficulty bronze|silver|gold|platinum] [--gamejolt_id N]
                                        as a Game Jolt trophy: its difficulty, its id (default: made of its id)
                      [--board default|ID --at_least N | --at_most N]
                                        unlocked when the board's stored score reaches N; without a
                                        threshold only the game unlocks it (action=unlock)
  achievements update <game_id> <achievement_id> [the same flags] [--rule none]
  achievements delete <game_id> <achievement_id>
  achievements icon <game_id> <achievement_id> --file PATH   (--clear true removes it)
  achievements unlocks <game_id> [--format ndjson|csv] [--player_name NAME] [--achievement_id ID]   (to standard output)

Board entries:
  players export <game_id> [--format ndjson|csv] [--board ID] [--period ...] [--period_id ID] [--season_id N]
                                        the whole board to standard output, in board order
  players import <game_id> [--file PATH] [--board ID]
                                        NDJSON lines (player_name, score, achieved_at, meta) from the
                                        file or standard input, into the current season, best-only
  players get <game_id> <player_name> [--board ID]
  players hide <game_id> <player_name> [--board ID]
                                        hides the player on every board of the game, and shows
                                        their entry on the board named (players show: back)
  players delete <game_id> <player_name>
                                        from every board of the game, named boards too

Erasure (a person, from every board of every game; cannot be undone):
  users erase <username>                the user, their sessions, entries, meta, held scores,
                                        ratings and play time
  players erase <player_name>           an API-key player name: entries, meta, held scores

--password-stdin reads the password from the first line of standard input, so
it stays out of the shell history and the process list.

Redis: REDIS_URL when set; otherwise the service's managed redis-server
(started for the duration of the command if the service is not running).
Each command prints the record as JSON; an error prints "error <code>: <message>".`
