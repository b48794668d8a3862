// Preload for Node servers that call `server.listen(port)` without a host
// (server-everything's `sse` and `streamableHttp` modes do exactly that and
// therefore listen on every interface). Load it with
//   NODE_OPTIONS="--require /abs/path/tests/mcp/loopback.cjs"
// and every TCP listen() that names no host binds to 127.0.0.1 instead.
// A listen() that names a host or a unix socket path is left alone.
'use strict';
const net = require('node:net');

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
  return original.apply(this, args);
};
