"""A todo service behind a Flask session login, for tailgate's cookie-jar
test: a form login (CSRF token in the session, handed out in a header),
then per-user todos that answer only a logged-in session. Usage:
python3 app.py PORT"""

import secrets
import sys
import threading

from flask import Flask, abort, jsonify, redirect, request, session

app = Flask(__name__)
app.secret_key = secrets.token_hex(16)
app.config["SESSION_COOKIE_SECURE"] = True  # as behind TLS in production
app.config["SESSION_COOKIE_SAMESITE"] = "Lax"

PASSWORD = "open-sesame"
lock = threading.Lock()
todos = {}  # user -> list of titles


@app.get("/health")
def health():
    return "ok"


@app.get("/login")
def login_form():
    session["csrf"] = secrets.token_hex(16)
    resp = app.make_response('<form method="post">...</form>')
    resp.headers["X-CSRF-Token"] = session["csrf"]
    return resp


@app.post("/login")
def login():
    if not session.get("csrf") or request.form.get("csrf_token") != session["csrf"]:
        abort(400, "CSRF token missing or wrong")
    if request.form.get("password") != PASSWORD:
        abort(401, "wrong user or password")
    session["user"] = request.form["username"]
    return redirect("/todos")


def current_user():
    user = session.get("user")
    if not user:
        abort(401, "log in first")
    return user


@app.get("/todos")
def list_todos():
    user = current_user()
    with lock:
        items = list(todos.get(user, []))[-20:]
    return jsonify(user=user, count=len(items), items=items)


@app.post("/todos")
def add_todo():
    user = current_user()
    if request.headers.get("X-CSRF-Token") != session.get("csrf"):
        abort(403, "CSRF token missing or wrong")
    title = (request.get_json(silent=True) or {}).get("title", "")
    with lock:
        todos.setdefault(user, []).append(title)
    return jsonify(user=user, title=title), 201


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(sys.argv[1]), threaded=True)
