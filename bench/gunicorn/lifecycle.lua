-- wrk's lifecycle for bench/gunicorn/measure-injected.sh: the five steps
-- of ab.yml's lifecycle (create, get, update, list, delete) in order on
-- each connection (run with as many threads as connections, so that a
-- thread's state is one connection's), signed in with the session cookie
-- in NOTES_COOKIE. Requests that fail are counted and printed at the end.
local step, id, n, failed = 0, "0", 0, 0
local json = {["Cookie"] = os.getenv("NOTES_COOKIE"), ["Content-Type"] = "application/json"}

request = function()
  if step == 0 then
    n = n + 1
    return wrk.format("POST", "/notes", json, '{"title":"peer note ' .. n .. '","body":"written by wrk","tags":["peer"]}')
  elseif step == 1 then
    return wrk.format("GET", "/notes/" .. id, json)
  elseif step == 2 then
    return wrk.format("PUT", "/notes/" .. id, json, '{"title":"peer note edited","body":"edited by wrk","tags":["peer","edited"]}')
  elseif step == 3 then
    return wrk.format("GET", "/notes?limit=20", json)
  end
  return wrk.format("DELETE", "/notes/" .. id, json)
end

response = function(status, headers, body)
  if status >= 400 then failed = failed + 1 end
  if step == 0 then id = string.match(body, '"id":%s*(%d+)') or "0" end
  step = (step + 1) % 5
end

done = function(summary, latency, requests)
  io.write(string.format("requests %d\n", summary.requests))
end
