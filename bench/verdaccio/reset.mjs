// reset.mjs: bench/verdaccio's dataset reset, through the registry itself
// as npm unpublish does it (a lifecycle cut by the end of a phase leaves
// its package tg-pkg-N published, and the next phase's {{seq}} would
// publish that name again): logs in as tg15, lists the packages the
// registry holds (its search over all names) and unpublishes every tg-pkg-*
// (logging in only when there is one),
// which leaves the seed's 200 packages. Verdaccio rereads nothing from
// disk, so deleting files under it would leave its index stale. Before a
// side's first start (tailgate ab resets then too) nothing answers and
// there is nothing to reset: serve.sh starts every process on a fresh copy.
const url = process.env.TAILGATE_TARGET_URL;
const auth = { authorization: 'Basic ' + Buffer.from('tg15:tailgate').toString('base64') };
async function call(method, path, headers = {}, body) {
  const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body });
  if (!res.ok) throw new Error(`reset: ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
try {
  await fetch(url + '/-/ping');
} catch {
  process.exit(0);
}
const found = await call('GET', '/-/v1/search?text=tg-pkg&size=250');
const left = found.objects.map((o) => o.package.name).filter((name) => name.startsWith('tg-pkg-'));
if (left.length === 0) process.exit(0); // the usual case: no login (a bcrypt check) needed
const { token } = await call('PUT', '/-/user/org.couchdb.user:tg15', auth, JSON.stringify({ name: 'tg15', password: 'tailgate' }));
const bearer = { authorization: `Bearer ${token}` };
for (const name of left) {
  const doc = await call('GET', `/${name}?write=true`, bearer);
  await call('DELETE', `/${name}/-rev/${doc._rev}`, bearer);
}
