// Captures the bytes node-spdy (npm spdy@4.0.2, spdy-transport@3.0.0) sends
// in both directions of one plain-TCP SPDY/3 connection, for
// spdy_interop_unittest.cc. Not run by the tests; rerun it by hand:
//
//   mkdir -p /tmp/spdy-peer && cd /tmp/spdy-peer && npm install spdy@4.0.2
//   NODE_PATH=/tmp/spdy-peer/node_modules node capture_node_spdy.js OUTDIR
//
// A node-spdy server (plain mode, spdy/3) listens on loopback; a node-spdy
// client agent connects to it through a relay in this script that records
// each direction; the client makes two GET requests on the one connection
// with header compression on (node-spdy's default is zlib level 0, stored
// blocks; level 6 makes the second header blocks refer back to the first
// and to the dictionary); then everything closes. Writes
// OUTDIR/node_spdy_client_to_server.bin and node_spdy_server_to_client.bin.
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');
const http = require('http');
const spdy = require('spdy');

const outdir = process.argv[2] || '.';
const toServer = [];
const toClient = [];

const server = spdy.createServer(
    {
      spdy: {
        plain: true,
        ssl: false,
        protocols: ['spdy/3'],
        connection: {headerCompression: true},
      },
    },
    (req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.setHeader('x-request-path', req.url);
      res.end('hello from node-spdy: ' + req.url + '\n');
    });

server.listen(0, '127.0.0.1', () => {
  const relay = net.createServer((client) => {
    const upstream = net.connect(server.address().port, '127.0.0.1');
    client.on('data', (d) => { toServer.push(d); upstream.write(d); });
    upstream.on('data', (d) => { toClient.push(d); client.write(d); });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  relay.listen(0, '127.0.0.1', () => {
    const agent = spdy.createAgent({
      host: '127.0.0.1',
      port: relay.address().port,
      spdy: {
        plain: true,
        ssl: false,
        protocol: 'spdy/3',
        connection: {headerCompression: true},
      },
    });
    const get = (p, done) => {
      http.get({host: 'example.test', agent, path: p}, (res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => { console.log(p, res.statusCode, body.trim()); done(); });
      });
    };
    get('/first', () => get('/second?x=1', () => {
      // Let the last frames cross the relay before writing the capture.
      setTimeout(() => {
        fs.writeFileSync(path.join(outdir, 'node_spdy_client_to_server.bin'),
                         Buffer.concat(toServer));
        fs.writeFileSync(path.join(outdir, 'node_spdy_server_to_client.bin'),
                         Buffer.concat(toClient));
        console.log('client->server', Buffer.concat(toServer).length,
                    'bytes; server->client', Buffer.concat(toClient).length,
                    'bytes');
        process.exit(0);
      }, 300);
    }));
  });
});
setTimeout(() => { console.error('timed out'); process.exit(1); }, 10000);
