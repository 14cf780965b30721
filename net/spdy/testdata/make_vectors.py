#!/usr/bin/env python3
"""Writes the hand-built SPDY/3 byte sequences in this folder.

An encoder independent of net/spdy: struct packing written from the draft's
frame diagrams and Python's zlib (window 11 bits, the SPDY/3 dictionary,
a sync flush per header block), so spdy_framer_unittest.cc can check that
our deframer reads what another encoder wrote. The dictionary is read out of
../spdy_header_compression.cc and checked against the draft's Adler-32.

  python3 net/spdy/testdata/make_vectors.py    (from the repository root)

Writes fuzz/frames_seed.bin (one direction of a connection: every frame
type once) and fuzz/header_block_seed.bin (an uncompressed header block).
The expected values are spelled out again in spdy_framer_unittest.cc
(IndependentEncoderVectors); change both together.
"""
import os
import re
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def dictionary():
    src = open(os.path.join(HERE, '..', 'spdy_header_compression.cc')).read()
    body = src[src.index('kSpdy3Dictionary[kSpdy3DictionarySize] = {'):]
    body = body[:body.index('};')]
    body = re.sub(r'//[^\n]*', '', body)
    d = bytes(int(h, 16) for h in re.findall(r'0x([0-9a-f]{2})', body))
    assert len(d) == 1423 and zlib.adler32(d) == 0xe3c6a7c2
    return d


def header_block(pairs):
    out = struct.pack('>I', len(pairs))
    for name, value in pairs:
        out += struct.pack('>I', len(name)) + name
        out += struct.pack('>I', len(value)) + value
    return out


def control(frame_type, flags, payload):
    return struct.pack('>HHI', 0x8003, frame_type,
                       flags << 24 | len(payload)) + payload


def data(stream_id, flags, payload):
    return struct.pack('>II', stream_id, flags << 24 | len(payload)) + payload


def main():
    z = zlib.compressobj(9, zlib.DEFLATED, 11, 1, zlib.Z_DEFAULT_STRATEGY,
                         dictionary())

    def compress(pairs):
        return z.compress(header_block(pairs)) + z.flush(zlib.Z_SYNC_FLUSH)

    request = [(b':method', b'GET'), (b':path', b'/index.html'),
               (b':version', b'HTTP/1.1'), (b':host', b'www.example.test'),
               (b':scheme', b'https'), (b'accept', b'*/*')]
    response = [(b':status', b'200 OK'), (b':version', b'HTTP/1.1'),
                (b'set-cookie', b'a=1\x00b=2')]
    trailer = [(b'x-trailer', b'done')]
    frames = [
        # SETTINGS: MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65536
        # (persist value).
        control(4, 0, struct.pack('>I', 2) +
                struct.pack('>II', 4, 100) +
                struct.pack('>II', 0x01000007, 65536)),
        # SYN_STREAM stream 1, priority 3, slot 1, FIN.
        control(1, 0x01, struct.pack('>IIBB', 1, 0, 3 << 5, 1) +
                compress(request)),
        # SYN_REPLY stream 1.
        control(2, 0, struct.pack('>I', 1) + compress(response)),
        # HEADERS stream 1.
        control(8, 0, struct.pack('>I', 1) + compress(trailer)),
        data(1, 0x01, b'hello'),
        # RST_STREAM stream 3, CANCEL.
        control(3, 0, struct.pack('>II', 3, 5)),
        control(6, 0, struct.pack('>I', 7)),
        # WINDOW_UPDATE stream 1, delta 4096.
        control(9, 0, struct.pack('>II', 1, 4096)),
        # CREDENTIAL slot 2, proof, two certificates.
        control(10, 0, struct.pack('>HI', 2, 5) + b'proof' +
                struct.pack('>I', 6) + b'cert-a' +
                struct.pack('>I', 6) + b'cert-b'),
        # GOAWAY last good 1, OK.
        control(7, 0, struct.pack('>II', 1, 0)),
    ]
    os.makedirs(os.path.join(HERE, 'fuzz'), exist_ok=True)
    with open(os.path.join(HERE, 'fuzz', 'frames_seed.bin'), 'wb') as f:
        f.write(b''.join(frames))
    with open(os.path.join(HERE, 'fuzz', 'header_block_seed.bin'), 'wb') as f:
        f.write(header_block(request))


if __name__ == '__main__':
    main()
