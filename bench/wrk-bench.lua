-- wrk script for bench/byte-path.sh.
--
-- Without BENCH_RANGE_SIZE every request is wrk's static one (the URL plus the -H headers).
-- With BENCH_RANGE_SIZE and BENCH_RANGE_FILE_SIZE set, each request asks for one range of
-- BENCH_RANGE_SIZE bytes at a random offset aligned to BENCH_RANGE_SIZE inside the file. The offsets
-- come from LuaJIT's PRNG seeded with BENCH_SEED + thread number, so every run (and every server)
-- gets the same sequence. The requests are formatted once in init() and replayed in a cycle, so
-- wrk spends no Lua work per request beyond picking the next string.
--
-- done() prints one machine-readable line starting with "BENCH " that the shell script parses.

local range_size = tonumber(os.getenv("BENCH_RANGE_SIZE") or "0")
local file_size = tonumber(os.getenv("BENCH_RANGE_FILE_SIZE") or "0")
local seed = tonumber(os.getenv("BENCH_SEED") or "20260301")
local pool_size = 8192

local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_number", thread_count)
end

local pool = nil
local next_index = 0

function init(args)
  if range_size <= 0 then return end
  local slots = math.floor(file_size / range_size)
  assert(slots >= 1, "BENCH_RANGE_FILE_SIZE must be at least BENCH_RANGE_SIZE")
  math.randomseed(seed + (thread_number or 0))
  pool = {}
  for k = 1, pool_size do
    local first = math.random(0, slots - 1) * range_size
    -- wrk.format uses only the table it is given, so copy the -H headers (Authorization) first.
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["Range"] = string.format("bytes=%d-%d", first, first + range_size - 1)
    pool[k] = wrk.format(nil, nil, headers)
  end
end

if range_size > 0 then
  request = function()
    next_index = next_index % pool_size + 1
    return pool[next_index]
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d bytes=%d duration_us=%d status_errors=%d connect_errors=%d read_errors=%d "
      .. "write_errors=%d timeouts=%d p50_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.bytes, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
