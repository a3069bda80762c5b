-- Returns {visible total, member, -score, member, -score, ...}, one snapshot.
local page = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
table.insert(page, 1, redis.call('ZCARD', KEYS[1]))
return page
