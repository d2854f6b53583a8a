// json-server as a module, with a reset endpoint that restores the seed in
// memory (and on disk): no --watch, no reload, no dropped connections.
const fs = require('fs');
const jsonServer = require('json-server');
const seed = () => JSON.parse(fs.readFileSync(__dirname + '/seed.json', 'utf8'));
fs.writeFileSync(__dirname + '/db.json', JSON.stringify(seed()));
const server = jsonServer.create();
const router = jsonServer.router(__dirname + '/db.json');
server.use(jsonServer.defaults({ logger: false }));
server.post('/__reset', (req, res) => { router.db.setState(seed()).write(); res.sendStatus(204); });
server.get('/__count', (req, res) => res.json({ count: router.db.get('items').size().value() }));
server.use(router);
server.listen(Number(process.argv[2]), '127.0.0.1');
