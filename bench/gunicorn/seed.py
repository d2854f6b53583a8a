"""Writes the fixed dataset of bench/gunicorn: 16 users (password from
NOTES_PASSWORD) and 500 notes, into a SQLite file (argument 1) or, with
--pg DSN, into a PostgreSQL database. users.csv lists the users."""
import random
import sys

from werkzeug.security import generate_password_hash

SCHEMA = [
    "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, password TEXT NOT NULL)",
    "CREATE TABLE notes (id {serial} PRIMARY KEY, owner INTEGER NOT NULL REFERENCES users(id),"
    " title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '', deleted INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX notes_owner ON notes (owner, deleted, id)",
]


def main():
    import os
    pw = generate_password_hash(os.environ["NOTES_PASSWORD"])
    if sys.argv[1] == "--pg":
        import psycopg2
        conn = psycopg2.connect(sys.argv[2])
        serial, ph = "SERIAL", "%s"
    else:
        import sqlite3
        conn = sqlite3.connect(sys.argv[1])
        conn.execute("PRAGMA journal_mode=WAL")
        serial, ph = "INTEGER", "?"
    cur = conn.cursor()
    for stmt in SCHEMA:
        cur.execute(stmt.format(serial=serial))
    rnd = random.Random(1)
    for u in range(1, 17):
        cur.execute(f"INSERT INTO users (id, email, password) VALUES ({ph}, {ph}, {ph})", (u, f"user{u}@example.test", pw))
    words = "alpha beta gamma delta lamp river stone cloud paper glass maple quiet".split()
    for n in range(1, 501):
        body = " ".join(rnd.choice(words) for _ in range(60))
        cur.execute(f"INSERT INTO notes (id, owner, title, body, tags) VALUES ({ph}, {ph}, {ph}, {ph}, {ph})",
                    (n, (n - 1) % 16 + 1, f"seed note {n}", body, ",".join(rnd.sample(words, 3))))
    if serial == "SERIAL":
        cur.execute("SELECT setval('notes_id_seq', 500)")
    conn.commit()


main()
