"""seed.py DIR: writes the fixed dataset of bench/radicale into DIR/seed, a
Radicale storage folder: user tg's calendar "team" (300 events in 2026: 260
single ones with descriptions, locations and attendees, 40 weekly recurring
ones, some with exceptions) and address book "contacts" (200 vCards). The
events are made by a fixed seed, so every build serves the same dataset."""
import datetime
import json
import os
import random
import sys

root = os.path.join(sys.argv[1], "seed", "collection-root", "tg")
cal, book = os.path.join(root, "team"), os.path.join(root, "contacts")
os.makedirs(cal)
os.makedirs(book)
rnd = random.Random(46)
with open(os.path.join(cal, ".Radicale.props"), "w") as f:
    json.dump({"tag": "VCALENDAR", "D:displayname": "Team",
               "C:calendar-description": "fixed dataset of bench/radicale"}, f)
with open(os.path.join(book, ".Radicale.props"), "w") as f:
    json.dump({"tag": "VADDRESSBOOK", "D:displayname": "Contacts"}, f)
words = ("review planning standup retro design budget hiring release incident "
         "roadmap offsite training demo audit migration").split()
people = [f"person{i}" for i in range(40)]
for i in range(300):
    t0 = datetime.datetime(2026, 1, 1, rnd.randrange(8, 18)) + datetime.timedelta(days=rnd.randrange(365))
    fmt = "%Y%m%dT%H%M%SZ"
    start = t0.strftime(fmt)
    end = (t0 + datetime.timedelta(minutes=rnd.choice((30, 60, 90)))).strftime(fmt)
    title = " ".join(rnd.sample(words, 3))
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tailgate bench//radicale seed//EN",
             "BEGIN:VEVENT", f"UID:seed-{i}@bench", "DTSTAMP:20260101T000000Z",
             f"DTSTART:{start}", f"DTEND:{end}", f"SUMMARY:{title}",
             f"DESCRIPTION:{' '.join(rnd.choices(words, k=30))}",
             f"LOCATION:room {rnd.randrange(1, 20)}",
             f"ORGANIZER;CN={rnd.choice(people)}:mailto:{rnd.choice(people)}@example.org"]
    for p in rnd.sample(people, rnd.randrange(1, 8)):
        lines.append(f"ATTENDEE;CN={p};PARTSTAT=ACCEPTED:mailto:{p}@example.org")
    if i >= 260:
        lines.append(f"RRULE:FREQ=WEEKLY;COUNT={rnd.randrange(10, 52)}")
        if i % 3 == 0:
            lines.append(f"EXDATE:{(t0 + datetime.timedelta(days=14)).strftime(fmt)}")
    lines += ["END:VEVENT", "END:VCALENDAR", ""]
    with open(os.path.join(cal, f"seed-{i}.ics"), "w", newline="") as f:
        f.write("\r\n".join(lines))
for i in range(200):
    p = f"Contact{i} Bench"
    lines = ["BEGIN:VCARD", "VERSION:3.0", f"UID:contact-{i}@bench", f"FN:{p}", f"N:Bench;Contact{i};;;",
             f"EMAIL;TYPE=work:contact{i}@example.org", f"TEL;TYPE=cell:+1555{i:07d}",
             f"ORG:{rnd.choice(words).title()} Team", "END:VCARD", ""]
    with open(os.path.join(book, f"contact-{i}.vcf"), "w", newline="") as f:
        f.write("\r\n".join(lines))
