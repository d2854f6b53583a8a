// start.mjs MODULES CONFIG PORT: Verdaccio (the verdaccio package under
// MODULES/node_modules) on 127.0.0.1:PORT with CONFIG, through its
// documented Node API, runServer. Its CLI refuses Node 20 outright
// (6.10.4 asks for Node 22), the server itself runs on it.
const [modules, config, port] = process.argv.slice(2);
const { runServer } = await import(`${modules}/node_modules/verdaccio/build/index.mjs`);
const server = await runServer(config, { listenArg: `127.0.0.1:${port}` });
server.listen(Number(port), '127.0.0.1');
