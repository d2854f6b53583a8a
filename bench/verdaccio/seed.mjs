// seed.mjs URL: fills a fresh Verdaccio at URL as its users would: registers
// tg0 … tg15 (password "tailgate", npm adduser's request) and publishes
// seed-pkg-0 … seed-pkg-199, version 1.0.0, as tg0 (npm publish's request:
// the package document with its tarball attached in base64), then checks
// that the registry serves all 200.
import { createHash } from 'node:crypto';
const url = process.argv[2];
const tgz = Buffer.from(process.env.TGZ_B64, 'base64');
const integrity = 'sha512-' + createHash('sha512').update(tgz).digest('base64');
const shasum = createHash('sha1').update(tgz).digest('hex');
async function call(method, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url + path, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}
let token;
for (let u = 0; u < 16; u++) {
  const name = `tg${u}`;
  const r = await call('PUT', `/-/user/org.couchdb.user:${name}`,
    { _id: `org.couchdb.user:${name}`, name, password: 'tailgate', type: 'user', roles: [], date: new Date(0).toISOString() });
  if (u === 0) token = r.token;
}
for (let i = 0; i < 200; i++) {
  const name = `seed-pkg-${i}`;
  const file = `${name}-1.0.0.tgz`;
  await call('PUT', `/${name}`, {
    _id: name, name, description: `seed package ${i}`, 'dist-tags': { latest: '1.0.0' },
    versions: { '1.0.0': { name, version: '1.0.0', description: `seed package ${i}`, main: 'index.js',
      keywords: ['tailgate', 'seed'], _id: `${name}@1.0.0`,
      dist: { integrity, shasum, tarball: `${url}/${name}/-/${file}` } } },
    access: null,
    _attachments: { [file]: { content_type: 'application/octet-stream', data: process.env.TGZ_B64, length: tgz.length } },
  }, token);
}
for (let i = 0; i < 200; i++) {
  const doc = await call('GET', `/seed-pkg-${i}`);
  if (doc['dist-tags'].latest !== '1.0.0') throw new Error(`seed-pkg-${i}: ${JSON.stringify(doc['dist-tags'])}`);
}
console.log('seed: 16 users, 200 packages');
