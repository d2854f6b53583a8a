// A todo API on Node's own http module (no dependencies), for measuring
// what a just-in-time compiler does to an A/B: V8 compiles the hot paths
// while the first seconds of load run, the same work on both sides, which
// dilutes a change measured too early.
//
//   node server.js PORT            # JIT_MODE=clean (default) or slow
//
// Every user has 60 todos, each tagged with one of 400 tags. GET /todos
// lists the caller's todos with their tags' names: clean looks each tag up
// in a Map; slow (the injected regression, plain JavaScript the JIT
// compiles) finds it by scanning the tag list, an N+1 in memory. POST
// /login takes {user} and returns a token; POST /__reset restores the
// seed; GET /__count counts the todos; GET /health answers 200.
'use strict';
const http = require('http');
const crypto = require('crypto');

const mode = process.env.JIT_MODE || 'clean';
const port = Number(process.argv[2]);
const USERS = 16, TODOS = 60, TAGS = 400;

const tags = [];
for (let i = 0; i < TAGS; i++) tags.push({ id: 't' + i, name: 'tag ' + i });
const tagById = new Map(tags.map((t) => [t.id, t]));
let todos, sessions = new Map();

function seed() {
  todos = new Map();
  for (let u = 0; u < USERS; u++) {
    const list = [];
    for (let i = 0; i < TODOS; i++) list.push({ id: u * 1000 + i, title: 'todo ' + i + ' of user ' + u, done: i % 3 === 0, tag: 't' + ((u * 37 + i * 11) % TAGS) });
    todos.set('user-' + u, list);
  }
}
seed();

function tagOf(id) {
  if (mode === 'slow') return tags.find((t) => t.id === id);
  return tagById.get(id);
}

function send(res, status, body) {
  const s = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

function readJSON(req, done) {
  let data = '';
  req.on('data', (c) => { data += c; });
  req.on('end', () => { try { done(data ? JSON.parse(data) : {}); } catch (e) { done(null); } });
}

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { ok: true });
  if (req.method === 'POST' && url.pathname === '/__reset') { seed(); return send(res, 204); }
  if (req.method === 'GET' && url.pathname === '/__count') {
    let n = 0; for (const l of todos.values()) n += l.length;
    return send(res, 200, { todos: n });
  }
  if (req.method === 'POST' && url.pathname === '/login') {
    return readJSON(req, (b) => {
      if (!b || !todos.has(b.user)) return send(res, 401, { error: 'unknown user' });
      const token = crypto.randomBytes(16).toString('hex');
      sessions.set(token, b.user);
      send(res, 200, { token, user: b.user });
    });
  }
  const user = sessions.get((req.headers.authorization || '').replace(/^Bearer /, ''));
  if (!user) return send(res, 401, { error: 'no session' });
  if (req.method === 'GET' && url.pathname === '/todos') {
    const items = todos.get(user).map((t) => ({ id: t.id, title: t.title, done: t.done, tag: tagOf(t.tag).name }));
    return send(res, 200, { user, count: items.length, items });
  }
  send(res, 404, { error: 'not found' });
}).listen(port, '127.0.0.1');
