-- The lifecycle of ab.yml for wrk, one connection per thread (wrk -tN -cN):
-- each thread acts as user tgTHREAD with the token the script's arguments
-- give (measure-injected.sh logs the users in beforehand with curl, as npm
-- login does, so that no bcrypt login falls in a measured slice), and publishes
-- tg-pkg-RUN-wTHREAD-N (RUN the script's argument: a wrk run's lifecycle cut
-- at its end leaves its package), reads its metadata, downloads its
-- tarball, searches, reads a seed package's metadata, reads the revision
-- and unpublishes, in turn. Non-2xx answers count in wrk's "Non-2xx" line.
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local n, step, token, rev, run = 0, 0, "", "", "0"
function init(args) run, token = args[1] or "0", args[2 + tid] or "" end
local npm = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"
local tgz = "H4sIAAAAAAACA+3Vz4rCMBDH8Zz3KULObk00aUHxYYINpev2D20VQXz3zZZ6UNhjy4Lfz2Umc/0xk9YfT74IazEjHWXOjTV6rWNvnNm47dbacZ7FTkgnFnDuB99JKd5UO+Vf1nm4Jl/9XPmn1v6d/8Y+5290ljkhNfnPrmry83dIwrVtuqGXB2n2HwJvt/9TjRegqRff/zR92X+TxpPA/i/gpmpfBbVTQ/HZngq1UpfQ9WVTx5FJdKLjpPLl7/PxRag7FwIAAAAAAAAAAAAAgH/lB99EpBMAKAAA"
local doc = '{"_id":"%s","name":"%s","description":"lifecycle","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{' ..
  '"name":"%s","version":"1.0.0","description":"lifecycle","main":"index.js","keywords":["tailgate","lifecycle"],"_id":"%s@1.0.0",' ..
  '"dist":{"integrity":"sha512-Ir+hstayJJ86wWBOgGec+7RXtyZn8684kyvf7vJ61OCjfUplaqUREr3rTWfgjc8ZACZWc5HyzrRRjwM1ummkvg==",' ..
  '"shasum":"c4295715481f73ab39df348b7be9b9609071b48b","tarball":"http://127.0.0.1/%s/-/%s-1.0.0.tgz"}}},"access":null,' ..
  '"_attachments":{"%s-1.0.0.tgz":{"content_type":"application/octet-stream","data":"' .. tgz .. '","length":219}}}'
local function name() return "tg-pkg-" .. run .. "-w" .. tid .. "-" .. n end
local function auth(extra)
  local h = {["Authorization"] = "Bearer " .. token}
  for k, v in pairs(extra or {}) do h[k] = v end
  return h
end
request = function()
  local p = name()
  if step == 0 then
    n = n + 1
    p = name()
    return wrk.format("PUT", "/" .. p, auth({["Content-Type"] = "application/json"}), string.format(doc, p, p, p, p, p, p, p))
  elseif step == 1 then
    return wrk.format("GET", "/" .. p, {["Accept"] = npm})
  elseif step == 2 then
    return wrk.format("GET", "/" .. p .. "/-/" .. p .. "-1.0.0.tgz")
  elseif step == 3 then
    return wrk.format("GET", "/-/v1/search?text=seed-pkg-" .. math.random(0, 199) .. "&size=20")
  elseif step == 4 then
    return wrk.format("GET", "/seed-pkg-" .. math.random(0, 199), {["Accept"] = npm})
  elseif step == 5 then
    return wrk.format("GET", "/" .. p .. "?write=true", auth())
  else
    return wrk.format("DELETE", "/" .. p .. "/-rev/" .. rev, auth())
  end
end
response = function(status, headers, body)
  if step == 5 then rev = string.match(body, '"_rev":%s*"([^"]+)"') or "" end
  step = (step + 1) % 7
end
