-- Sliding window counter (Cloudflare's two-counter estimate): the same math as Sluice's
-- dev.sluice.core.algorithm.SlidingWindow, in microseconds instead of nanoseconds.
--
--   estimate = floor(previous * (W - elapsed) / W) + current,  elapsed = now - currentStart
--   allow iff  estimate + permits <= limit
--
-- KEYS[1]  the key (a hash: s = current window start, c = current count, p = previous count)
-- ARGV[1]  limit;  ARGV[2] window in microseconds;  ARGV[3] permits
-- ARGV[4]  optional: now in microseconds (tests drive a timeline); otherwise the server's TIME,
--          so, as in Sluice, the time is the store's clock and never the caller's.
-- Returns {1, remaining} when allowed, {0, remaining} when denied. A denial writes nothing.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])
local now
if ARGV[4] then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local windowStart = now - (now % window)
local state = redis.call('HMGET', KEYS[1], 's', 'c', 'p')
local start = tonumber(state[1]) or 0
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
if start ~= windowStart then
  if windowStart - start == window then previous = current else previous = 0 end
  current = 0
  start = windowStart
end
local elapsed = now - start
local estimate = math.floor(previous * (window - elapsed) / window) + current
if estimate + permits <= limit then
  -- %d keeps the fields integers, which Redis stores compactly in the hash's listpack.
  redis.call('HSET', KEYS[1], 's', string.format('%d', start),
    'c', string.format('%d', current + permits), 'p', string.format('%d', previous))
  redis.call('PEXPIRE', KEYS[1], math.ceil(2 * window / 1000))
  return {1, limit - estimate - permits}
end
return {0, math.max(0, limit - estimate)}
