-- CL.THROTTLE as a Lua script: how people get redis-cell's command on a Redis that cannot load
-- modules. The same GCRA (generic cell rate algorithm) and the same five integers as redis-cell
-- 0.5, in microseconds on the server's clock:
--
--   T = period / count      tolerance = T * (max_burst + 1)
--   allow iff  max(TAT, now) + T * quantity - tolerance <= now,  then TAT = max(TAT, now) + T * quantity
--
-- KEYS[1]  the key (a string: the TAT in microseconds, expiring when it has passed)
-- ARGV     max_burst, count per period, period in seconds, quantity (default 1)
-- Returns {limited, limit, remaining, retry after s (-1 when allowed), reset after s}.
local burst = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local quantity = tonumber(ARGV[4] or "1")
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = period * 1000000 / count
local limit = burst + 1
local tolerance = interval * limit
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
local new_tat = tat + interval * quantity
local diff = now - (new_tat - tolerance)
local limited, retry, ttl
if diff < 0 then
  limited = 1
  retry = -1
  if interval * quantity <= tolerance then
    retry = math.ceil(-diff / 1000000)
  end
  ttl = tat - now
else
  limited = 0
  retry = -1
  ttl = new_tat - now
  redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.max(1, math.ceil(ttl / 1000)))
end
local remaining = 0
local next_free = tolerance - ttl
if next_free > -interval then
  remaining = math.floor(next_free / interval)
end
return {limited, limit, remaining, retry, math.ceil(ttl / 1000000)}
