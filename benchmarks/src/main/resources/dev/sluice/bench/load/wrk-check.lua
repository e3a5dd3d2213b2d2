-- S5's wrk script (dev.sluice.bench.load.WrkRunner): POST /v1/check with one of N keys, uniform,
-- counting 200 (admitted), 429 (denied) and anything else.
--
--   wrk -t2 -c16 -d5s -s wrk-check.lua http://127.0.0.1:PORT/v1/check -- RULE PREFIX N MAX
--
-- Keys are PREFIX0 .. PREFIX(N-1); each thread stops after MAX answers, so a round is bounded in
-- count as well as by -d. done() prints one line, SLUICE_WRK, that the harness parses.
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  local rule, prefix = args[1], args[2]
  nkeys, max = tonumber(args[3]), tonumber(args[4])
  math.randomseed(5315813 + id)
  bodies = {}
  local headers = { ["Content-Type"] = "application/json" }
  for i = 0, nkeys - 1 do
    local body = '{"rule":"' .. rule .. '","key":"' .. prefix .. i .. '","cost":1}'
    bodies[i + 1] = wrk.format("POST", nil, headers, body)
  end
  ok, limited, other, seen = 0, 0, 0, 0
end

function request()
  return bodies[math.random(nkeys)]
end

function response(status, headers, body)
  if status == 200 then
    ok = ok + 1
  elseif status == 429 then
    limited = limited + 1
  else
    other = other + 1
  end
  seen = seen + 1
  if seen >= max then
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local sum = { ok = 0, limited = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for name, _ in pairs(sum) do
      sum[name] = sum[name] + thread:get(name)
    end
  end
  local e = summary.errors
  io.write(string.format(
    "SLUICE_WRK requests=%d duration_us=%d ok=%d limited=%d other=%d connect=%d read=%d write=%d"
      .. " timeout=%d p50=%d p99=%d p999=%d\n",
    summary.requests, summary.duration, sum.ok, sum.limited, sum.other, e.connect, e.read,
    e.write, e.timeout, latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
