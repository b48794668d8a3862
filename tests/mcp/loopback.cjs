// Preload for Node servers that call `server.listen(port)` without a host
// (server-everything's `sse` and `streamableHttp` modes do exactly that and
// therefore listen on every interface). Load it with
//   NODE_OPTIONS="--require /abs/path/tests/mcp/loopback.cjs"
// and every TCP listen() that names no host binds to 127.0.0.1 instead.
// A listen() that names a host or a unix socket path is left alone.
//
// Once a TCP server is listening, the real address is announced on stderr as
//   loopback.cjs: listening on 127.0.0.1:PORT
// and, if CONTRACTPIN_PORT_FILE is set, PORT is written to that file (atomically),
// so PORT=0 (a free port chosen by the kernel) can be used without races.
'use strict';
const fs = require('node:fs');
const net = require('node:net');

function announce(server) {
  server.once('listening', () => {
    const a = server.address();
    if (!a || typeof a !== 'object') return;
    process.stderr.write(`loopback.cjs: listening on ${a.address}:${a.port}\n`);
    const file = process.env.CONTRACTPIN_PORT_FILE;
    if (file) {
      fs.writeFileSync(`${file}.tmp`, `${a.port}\n`);
      fs.renameSync(`${file}.tmp`, file);
    }
  });
}

const LOOPBACK = process.env.CONTRACTPIN_TEST_BIND || '127.0.0.1';
const original = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === 'number' || (typeof v === 'string' && /^[0-9]+$/.test(v));
}

net.Server.prototype.listen = function patchedListen(...args) {
  if (args.length > 0 && isPort(args[0])) {
    if (typeof args[1] !== 'string') {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (args.length > 0 && args[0] !== null && typeof args[0] === 'object'
             && !(args[0] instanceof net.Server) && args[0].path === undefined
             && args[0].fd === undefined && args[0].handle === undefined
             && args[0]._handle === undefined) {
    if (args[0].host === undefined) {
      args[0] = Object.assign({}, args[0], { host: LOOPBACK });
    }
  } else if (args.length === 0 || typeof args[0] === 'function') {
    // listen() / listen(cb): random port on all interfaces -> loopback
    args.unshift(0, LOOPBACK);
  }
  announce(this);
  return original.apply(this, args);
};
