// node-spdy (npm spdy@4.0.2) as a SPDY/3 peer for spdy_node_interop_test:
// one server over TLS with ALPN spdy/3 and one in plain mode, both on
// 127.0.0.1 port 0. Prints one JSON line {"tls":PORT,"plain":PORT} once both
// listen, then serves until killed (or until stdin closes).
//
//   node node_spdy_peer.js KEY.pem CERT_CHAIN.pem
//
// Routes:
//   /size/N       N bytes of the test body pattern, written in 64 KB pieces
//                 (node-spdy sends them as the client's windows allow)
//   /echo         (POST) {"bytes":N,"sha256":"..."} of the request body
//   /goaway       GOAWAY (last good = this stream), then a 200 answer
//   /rst          RST_STREAM (REFUSED_STREAM) instead of an answer
//   anything else 200 "path=<path>"
// Exit status 3 (and a message on stderr) if the spdy module is missing.

'use strict';

let spdy;
try {
  spdy = require('spdy');
} catch (e) {
  process.stderr.write('node-spdy (npm spdy@4.0.2) is not installed: ' +
                       e.message + '\n');
  process.exit(3);
}
const crypto = require('crypto');
const fs = require('fs');

const PATTERN =
    Buffer.from('netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n');

function generated(offset, n) {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; ++i) out[i] = PATTERN[(offset + i) % PATTERN.length];
  return out;
}

function handler(req, res) {
  const path = req.url.split('?')[0];
  if (path.startsWith('/size/')) {
    const n = parseInt(path.substring(6), 10);
    res.writeHead(200, {'content-type': 'application/octet-stream',
                        'content-length': String(n)});
    let sent = 0;
    const more = () => {
      while (sent < n) {
        const piece = Math.min(65536, n - sent);
        const ok = res.write(generated(sent, piece));
        sent += piece;
        if (!ok) {
          res.once('drain', more);
          return;
        }
      }
      res.end();
    };
    more();
    return;
  }
  if (path === '/echo') {
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    req.on('end', () => {
      res.writeHead(200, {'content-type': 'application/json'});
      res.end(JSON.stringify({bytes: bytes, sha256: hash.digest('hex')}));
    });
    return;
  }
  if (path === '/goaway') {
    const stream = req.spdyStream;
    stream.connection._goaway(
        {lastId: stream.id, code: 'OK', send: true});
    res.writeHead(200, {'content-type': 'text/plain'});
    res.end('going away');
    return;
  }
  if (path === '/rst') {
    req.spdyStream.abort('REFUSED_STREAM');
    return;
  }
  res.writeHead(200, {'content-type': 'text/plain'});
  res.end('path=' + req.url);
}

const tls = spdy.createServer({
  key: fs.readFileSync(process.argv[2]),
  cert: fs.readFileSync(process.argv[3]),
  spdy: {protocols: ['spdy/3'], plain: false, ssl: true},
}, handler);
const plain = spdy.createServer({
  spdy: {protocols: ['spdy/3'], plain: true, ssl: false},
}, handler);

let listening = 0;
function onListening() {
  if (++listening < 2) return;
  process.stdout.write(JSON.stringify({
    tls: tls.address().port,
    plain: plain.address().port,
  }) + '\n');
}
tls.listen(0, '127.0.0.1', onListening);
plain.listen(0, '127.0.0.1', onListening);
// Errors of one connection (a client that goes away) are not fatal.
for (const server of [tls, plain]) server.on('clientError', () => {});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
