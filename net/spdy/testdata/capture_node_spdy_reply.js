// Sends netstack_request.bin (our SpdyFramer's bytes; see
// ../spdy_interop_request_main.cc) to a node-spdy server (npm spdy@4.0.2,
// plain mode, spdy/3, header compression on) over plain TCP, and records
// everything the server sends back within a second, for
// spdy_interop_unittest.cc:
//
//   NODE_PATH=/tmp/spdy-peer/node_modules node capture_node_spdy_reply.js DIR
//
// reads DIR/netstack_request.bin, writes DIR/node_spdy_reply_to_netstack.bin.
// The server answers each request with its path in x-request-path, so the
// reply shows that node-spdy inflated both of our header blocks.
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');
const spdy = require('spdy');

const dir = process.argv[2] || '.';
const request = fs.readFileSync(path.join(dir, 'netstack_request.bin'));
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
      res.setHeader('x-request-path', req.url);
      res.setHeader('x-user-agent', req.headers['user-agent'] || '');
      res.end(req.method + ' ' + req.url + '\n');
    });
server.listen(0, '127.0.0.1', () => {
  const chunks = [];
  const socket = net.connect(server.address().port, '127.0.0.1', () => {
    socket.write(request);
  });
  socket.on('data', (d) => chunks.push(d));
  setTimeout(() => {
    const reply = Buffer.concat(chunks);
    fs.writeFileSync(path.join(dir, 'node_spdy_reply_to_netstack.bin'), reply);
    console.log('reply', reply.length, 'bytes');
    process.exit(0);
  }, 1000);
});
