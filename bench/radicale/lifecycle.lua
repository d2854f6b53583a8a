-- The lifecycle of ab.yml for wrk, one connection per thread (wrk -tN -cN):
-- token, create, week, changes, delete in turn, each thread on events of
-- its own (tg-RUN-wTHREAD-N.ics, RUN the script's argument: a wrk run's
-- lifecycle cut at its end leaves its event), the sync token and ETag read
-- from the responses. Non-2xx answers count in wrk's "Non-2xx" line.
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local n, step, token, etag, run = 0, 0, "", "", "0"
function init(args) run = args[1] or "0" end
local dav = {["Authorization"] = "Basic dGc6dGc=", ["Content-Type"] = "application/xml; charset=utf-8"}
local function hdr(extra)
  local h = {}
  for k, v in pairs(dav) do h[k] = v end
  for k, v in pairs(extra) do h[k] = v end
  return h
end
local function uid() return "tg-" .. run .. "-w" .. tid .. "-" .. n end
local function href() return "/tg/team/" .. uid() .. ".ics" end
local event = table.concat({"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tailgate//bench//EN", "BEGIN:VEVENT",
  "UID:%s@bench", "DTSTAMP:20260101T000000Z", "DTSTART:20260303T%02d0000Z", "DURATION:PT1H",
  "SUMMARY:meeting %s", "ATTENDEE;CN=person1:mailto:person1@example.org", "END:VEVENT", "END:VCALENDAR", ""}, "\n")
local week = '<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">' ..
  '<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">' ..
  '<C:time-range start="20260302T000000Z" end="20260309T000000Z"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>'
request = function()
  if step == 0 then
    n = n + 1
    return wrk.format("PROPFIND", "/tg/team/", hdr({Depth = "0"}),
      '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><prop><sync-token/></prop></propfind>')
  elseif step == 1 then
    return wrk.format("PUT", href(), {["Authorization"] = "Basic dGc6dGc=", ["Content-Type"] = "text/calendar", ["If-None-Match"] = "*"},
      string.format(event, uid(), 10 + n % 8, uid()))
  elseif step == 2 then
    return wrk.format("REPORT", "/tg/team/", hdr({Depth = "1"}), week)
  elseif step == 3 then
    return wrk.format("REPORT", "/tg/team/", hdr({}), '<?xml version="1.0" encoding="utf-8"?><sync-collection xmlns="DAV:"><sync-token>' ..
      token .. '</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>')
  else
    return wrk.format("DELETE", href(), {["Authorization"] = "Basic dGc6dGc=", ["If-Match"] = etag})
  end
end
response = function(status, headers, body)
  if step == 0 then token = string.match(body, "<sync%-token>([^<]+)</sync%-token>") or "" end
  if step == 1 then etag = headers["ETag"] or headers["Etag"] or "" end
  step = (step + 1) % 5
end
