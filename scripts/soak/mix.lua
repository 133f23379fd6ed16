-- wrk script for the soak: a round-robin mix of requests read from SOAK_MIX_FILE (one request
-- a line: METHOD <tab> PATH <tab> name:value|name:value <tab> BODY), and a JSON summary line
-- with the error counts, statuses >= 400 by code, and latency percentiles in milliseconds.
local requests = {}
local counter = 0
local threads = {}
bad = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(os.getenv("SOAK_MIX_FILE")) do
    local method, path, headers, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    if method then
      local h = {}
      for pair in headers:gmatch("[^|]+") do
        local name, value = pair:match("^([^:]+):(.*)$")
        if name then h[name] = value end
      end
      if body == "" then body = nil end
      table.insert(requests, wrk.format(method, path, h, body))
    end
  end
  counter = math.random(#requests)
end

function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end

function response(status, headers, body)
  if status >= 400 then
    bad[status] = (bad[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local statuses = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("bad")
    if counts then
      for status, count in pairs(counts) do
        statuses[status] = (statuses[status] or 0) + count
      end
    end
  end
  local parts = {}
  for status, count in pairs(statuses) do
    table.insert(parts, string.format('"%d":%d', status, count))
  end
  io.write(string.format(
    'SOAK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"statuses":{%s},"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f}\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    table.concat(parts, ","), latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
