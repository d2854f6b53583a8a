"""A notes API behind a session-cookie login: a Flask app run by gunicorn's
sync workers (several processes), the other-runtime service of tailgate's
bench (issue 38 part 8). Flask and gunicorn come from Debian's packages.

Storage is SQLite (NOTES_DB, a file each side copies from the golden one),
or PostgreSQL when NOTES_PG names a database: then every request opens its
own connection and closes it, as an app without a pool does, so the
server's backends come and go (issue 36: the database's CPU on a pool that
reconnects).

NOTES_BURN chains that many SHA-256 rounds in every /notes request: the
injected CPU regression (serve.sh picks it per build). NOTES_N1=1 makes the
list an N+1: the ids first, then each note with its own query (the injected
database regression of ab-pg.yml).
"""
import hashlib
import os
import threading

from flask import Flask, abort, g, jsonify, request, session
from werkzeug.security import check_password_hash

app = Flask(__name__)
app.secret_key = b"tailgate-bench-only-not-a-secret"
BURN = int(os.environ.get("NOTES_BURN", "0"))
PG = os.environ.get("NOTES_PG", "")
N1 = os.environ.get("NOTES_N1", "") == "1"
SEED_NOTES = 500


def connect():
    if PG:
        import psycopg2
        return psycopg2.connect(PG)
    import sqlite3
    conn = sqlite3.connect(os.environ["NOTES_DB"], timeout=10, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    return conn


_local = threading.local()


def db():
    # SQLite: one connection per worker process, kept; PostgreSQL: one per
    # request, closed when it ends (no pool).
    if PG:
        if "conn" not in g:
            g.conn = connect()
            g.conn.autocommit = True
        return g.conn
    if getattr(_local, "conn", None) is None:
        _local.conn = connect()
    return _local.conn


@app.teardown_request
def close_pg(_exc):
    conn = g.pop("conn", None)
    if conn is not None:
        conn.close()


def q(sql, *args):
    if PG:
        sql = sql.replace("?", "%s")
    cur = db().cursor()
    cur.execute(sql, args)
    if cur.description is None:
        return []
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]


def burn():
    h = b"tailgate"
    for _ in range(BURN):
        h = hashlib.sha256(h).digest()
    return h


def user_id():
    uid = session.get("uid")
    if uid is None:
        abort(401)
    return uid


@app.before_request
def injected():
    if BURN and request.path.startswith("/notes"):
        burn()


@app.post("/login")
def login():
    body = request.get_json(force=True)
    rows = q("SELECT id, email, password FROM users WHERE email = ?", body.get("email", ""))
    if not rows or not check_password_hash(rows[0]["password"], body.get("password", "")):
        abort(401)
    session["uid"] = rows[0]["id"]
    return jsonify(id=rows[0]["id"], email=rows[0]["email"])


def note_json(row):
    return {k: row[k] for k in ("id", "title", "body", "tags", "owner")}


@app.post("/notes")
def create():
    uid = user_id()
    body = request.get_json(force=True)
    rows = q("INSERT INTO notes (owner, title, body, tags) VALUES (?, ?, ?, ?) RETURNING id, owner, title, body, tags",
             uid, body["title"], body.get("body", ""), ",".join(body.get("tags", [])))
    return jsonify(note_json(rows[0])), 201


def own_note(note_id, uid):
    rows = q("SELECT id, owner, title, body, tags FROM notes WHERE id = ? AND owner = ? AND deleted = 0", note_id, uid)
    if not rows:
        abort(404)
    return rows[0]


@app.get("/notes/<int:note_id>")
def get(note_id):
    return jsonify(note_json(own_note(note_id, user_id())))


@app.put("/notes/<int:note_id>")
def update(note_id):
    uid = user_id()
    own_note(note_id, uid)
    body = request.get_json(force=True)
    rows = q("UPDATE notes SET title = ?, body = ?, tags = ? WHERE id = ? RETURNING id, owner, title, body, tags",
             body["title"], body.get("body", ""), ",".join(body.get("tags", [])), note_id)
    return jsonify(note_json(rows[0]))


@app.get("/notes")
def list_notes():
    uid = user_id()
    limit = min(int(request.args.get("limit", "20")), 100)
    if N1:
        ids = q("SELECT id FROM notes WHERE owner = ? AND deleted = 0 ORDER BY id DESC LIMIT ?", uid, limit)
        rows = [q("SELECT id, owner, title, body, tags FROM notes WHERE id = ?", r["id"])[0] for r in ids]
    else:
        rows = q("SELECT id, owner, title, body, tags FROM notes WHERE owner = ? AND deleted = 0 ORDER BY id DESC LIMIT ?", uid, limit)
    total = q("SELECT count(*) AS n FROM notes WHERE owner = ? AND deleted = 0", uid)[0]["n"]
    return jsonify(total=total, items=[note_json(r) for r in rows])


@app.delete("/notes/<int:note_id>")
def delete(note_id):
    uid = user_id()
    own_note(note_id, uid)
    q("UPDATE notes SET deleted = 1 WHERE id = ?", note_id)  # a soft delete
    return "", 204


@app.post("/bench/reset")
def reset():
    q("DELETE FROM notes WHERE id > ?", SEED_NOTES)
    q("UPDATE notes SET deleted = 0 WHERE deleted = 1")
    return jsonify(ok=True)


@app.get("/bench/count")
def count():
    return jsonify(notes=q("SELECT count(*) AS n FROM notes WHERE deleted = 0")[0]["n"],
                   users=q("SELECT count(*) AS n FROM users")[0]["n"])


@app.get("/health")
def health():
    return "ok"
