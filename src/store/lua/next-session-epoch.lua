-- Raises a user's session epoch (KEYS[1], the user record), if the user exists. Returns the new epoch, or -1.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HINCRBY', KEYS[1], 'session_epoch', 1)
