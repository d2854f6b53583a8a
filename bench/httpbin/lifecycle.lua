-- The lifecycle of ab.yml for wrk: get, post, json, base64, one request each in turn.
local n = 0
local reqs = {
  function() return wrk.format("GET", "/get?item=" .. n) end,
  function() return wrk.format("POST", "/post", {["Content-Type"] = "application/json"}, '{"item":"' .. n .. '","note":"tailgate"}') end,
  function() return wrk.format("GET", "/json") end,
  function() return wrk.format("GET", "/base64/dGFpbGdhdGUgYmVuY2htYXJr") end,
}
request = function()
  n = n + 1
  return reqs[(n % 4) + 1]()
end
