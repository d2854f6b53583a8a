-- The lifecycle of ab.yml for wrk: page, listing, json (gzip), missing, one request each in turn.
local n = 0
local reqs = {
  function() return wrk.format("GET", "/post.html?item=" .. n) end,
  function() return wrk.format("GET", "/files/") end,
  function() return wrk.format("GET", "/data.json", {["Accept-Encoding"] = "gzip"}) end,
  function() return wrk.format("GET", "/files/none-" .. n .. ".txt") end,
}
request = function()
  n = n + 1
  return reqs[(n % 4) + 1]()
end
