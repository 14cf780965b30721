// The numbered list of network errors, an X-macro included by net_errors.h.
//
// Names are stable. Every error's number lies in its area's range, so a
// caller can classify an error by its number (tools/fetch/exit_codes.h
// derives fetch's exit codes from it):
//     0- 99  system and generic
//   100-199  connection and socket
//   200-299  certificate and revocation
//   300-399  HTTP (and URLs)
//   400-499  DNS
//   500-599  TLS and cipher
//   600-649  SPDY (600-619) and HTTP/2 (620-649)
//   650-699  prefetch
//   700-749  Snap Start
//   750-799  origin-bound certificates (OBC)
//   800-849  QUIC (800-819) and HTTP/3 (820-849)
// Numbers changed once (issue 16), to make the ranges hold: NAME_NOT_RESOLVED
// -105 -> -403, SOCKET_NOT_CONNECTED -15 -> -112, and the TLS errors that sat
// among the connection errors: SSL_PROTOCOL_ERROR -107 -> -503,
// SSL_CLIENT_AUTH_CERT_NEEDED -110 -> -504, SSL_VERSION_OR_CIPHER_MISMATCH
// -113 -> -505, SSL_HANDSHAKE_CLOSED -119 -> -506, SSL_BAD_RECORD_MAC_ALERT
// -126 -> -507. Nothing persists error numbers; from now on numbers are
// stable too and never reused.
// Each entry is NET_ERROR(NAME, -number) and gets the constant ERR_NAME.

// An asynchronous operation is in progress; its callback will run later.
NET_ERROR(IO_PENDING, -1)
// A generic failure occurred.
NET_ERROR(FAILED, -2)
// The operation was aborted (object destroyed or cancelled).
NET_ERROR(ABORTED, -3)
// An argument to the function is incorrect.
NET_ERROR(INVALID_ARGUMENT, -4)
// The handle or file descriptor is invalid.
NET_ERROR(INVALID_HANDLE, -5)
// The file or directory cannot be found.
NET_ERROR(FILE_NOT_FOUND, -6)
// An operation timed out.
NET_ERROR(TIMED_OUT, -7)
// The file is too large.
NET_ERROR(FILE_TOO_BIG, -8)
// An unexpected error; may be caused by a programming mistake.
NET_ERROR(UNEXPECTED, -9)
// Permission to access a resource was denied.
NET_ERROR(ACCESS_DENIED, -10)
// The operation is not implemented.
NET_ERROR(NOT_IMPLEMENTED, -11)
// There were not enough resources to complete the operation.
NET_ERROR(INSUFFICIENT_RESOURCES, -12)
// Memory allocation failed.
NET_ERROR(OUT_OF_MEMORY, -13)
// Writing to a file or socket failed.
NET_ERROR(FILE_WRITE_FAILED, -16)
// A command-line flag or configuration value is malformed.
NET_ERROR(INVALID_CONFIG, -17)

// A connection was closed (corresponding to a TCP FIN).
NET_ERROR(CONNECTION_CLOSED, -100)
// A connection was reset (corresponding to a TCP RST).
NET_ERROR(CONNECTION_RESET, -101)
// A connection attempt was refused.
NET_ERROR(CONNECTION_REFUSED, -102)
// A connection was aborted because no ACK was received for sent data.
NET_ERROR(CONNECTION_ABORTED, -103)
// A connection attempt failed.
NET_ERROR(CONNECTION_FAILED, -104)
// The Internet connection has been lost.
NET_ERROR(INTERNET_DISCONNECTED, -106)
// The IP address or port number is invalid.
NET_ERROR(ADDRESS_INVALID, -108)
// The IP address is unreachable.
NET_ERROR(ADDRESS_UNREACHABLE, -109)
// The socket is not connected.
NET_ERROR(SOCKET_NOT_CONNECTED, -112)
// A connection attempt timed out.
NET_ERROR(CONNECTION_TIMED_OUT, -118)
// The address is already in use.
NET_ERROR(ADDRESS_IN_USE, -147)
// The socket is already connected.
NET_ERROR(SOCKET_IS_CONNECTED, -123)
// Proxies (net/proxy, net/http/http_proxy_connect_job.h); Chromium's names
// and numbers.
// No connection to the HTTP proxy could be made: its name did not resolve,
// or TCP to it failed or timed out (the detail says which).
NET_ERROR(PROXY_CONNECTION_FAILED, -130)
// The proxy did not open the CONNECT tunnel: it answered with a status other
// than 2xx (and 407), or its reply was malformed or cut short, or it sent
// bytes after its 200 (the detail has the status or what was wrong).
NET_ERROR(TUNNEL_CONNECTION_FAILED, -111)
// The proxy answered CONNECT with 407 Proxy Authentication Required: no
// credentials were given, or it refused them (the detail says which).
NET_ERROR(PROXY_AUTH_REQUESTED, -127)

// The server's certificate name does not match the host name.
NET_ERROR(CERT_COMMON_NAME_INVALID, -200)
// The server's certificate is expired or not yet valid.
NET_ERROR(CERT_DATE_INVALID, -201)
// The server's certificate does not chain to a trusted anchor.
NET_ERROR(CERT_AUTHORITY_INVALID, -202)
// The server's certificate contains errors.
NET_ERROR(CERT_CONTAINS_ERRORS, -203)
// Revocation status could not be determined (only under hard-fail).
NET_ERROR(CERT_UNABLE_TO_CHECK_REVOCATION, -204)
// The server's certificate has been revoked.
NET_ERROR(CERT_REVOKED, -205)
// The server's certificate is invalid for another reason.
NET_ERROR(CERT_INVALID, -207)
// The certificate is signed with a weak algorithm.
NET_ERROR(CERT_WEAK_SIGNATURE_ALGORITHM, -208)
// The trust anchors could not be loaded.
NET_ERROR(CERT_TRUST_ANCHORS_INVALID, -210)

// The URL is invalid.
NET_ERROR(INVALID_URL, -300)
// The URL's scheme is not supported.
NET_ERROR(UNKNOWN_URL_SCHEME, -302)
// Too many redirects.
NET_ERROR(TOO_MANY_REDIRECTS, -310)
// A redirect's Location could not be resolved to a URL.
NET_ERROR(INVALID_REDIRECT, -303)
// A redirect pointed to a scheme other than http or https.
NET_ERROR(UNSAFE_REDIRECT, -311)
// The response body's Content-Encoding (gzip, deflate, br) did not decode:
// corrupt, or truncated before the coding's end.
NET_ERROR(CONTENT_DECODING_FAILED, -330)
// The server's response was empty.
NET_ERROR(EMPTY_RESPONSE, -324)
// The server's response headers were too large.
NET_ERROR(RESPONSE_HEADERS_TOO_BIG, -325)
// The server's response could not be parsed as HTTP/1.x.
NET_ERROR(INVALID_HTTP_RESPONSE, -370)
// The chunked transfer encoding was malformed.
NET_ERROR(INVALID_CHUNKED_ENCODING, -321)
// The response body ended before its announced length.
NET_ERROR(CONTENT_LENGTH_MISMATCH, -354)
// The response ended before its chunked body was complete.
NET_ERROR(INCOMPLETE_CHUNKED_ENCODING, -355)
// Content-Length headers (or list members) with different values.
NET_ERROR(RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH, -349)
// A Content-Length that is not a decimal number or does not fit in 63 bits.
NET_ERROR(INVALID_CONTENT_LENGTH, -371)

// The DNS server could not be reached or did not answer in time.
NET_ERROR(DNS_TIMED_OUT, -400)
// The DNS server answered with a malformed response.
NET_ERROR(DNS_MALFORMED_RESPONSE, -401)
// The DNS server returned a failure (SERVFAIL, REFUSED).
NET_ERROR(DNS_SERVER_FAILED, -402)
// The host name could not be resolved (NXDOMAIN, no addresses).
NET_ERROR(NAME_NOT_RESOLVED, -403)

// The TLS handshake failed for a reason BoringSSL reported.
NET_ERROR(SSL_HANDSHAKE_FAILED, -500)
// The server presented no certificate.
NET_ERROR(SSL_SERVER_CERT_MISSING, -501)
// The peer sent a fatal alert.
NET_ERROR(SSL_PEER_ALERT, -502)
// An SSL protocol error occurred.
NET_ERROR(SSL_PROTOCOL_ERROR, -503)
// The server requested a client certificate and none could be supplied.
NET_ERROR(SSL_CLIENT_AUTH_CERT_NEEDED, -504)
// The client and server do not support a common SSL protocol version or
// cipher suite.
NET_ERROR(SSL_VERSION_OR_CIPHER_MISMATCH, -505)
// The server closed the connection before the TLS handshake finished.
NET_ERROR(SSL_HANDSHAKE_CLOSED, -506)
// The server sent a fatal TLS alert for a bad record MAC or decryption.
NET_ERROR(SSL_BAD_RECORD_MAC_ALERT, -507)
// The server rejected the request sent as TLS 1.3 early data (0-RTT); the
// HTTP transaction sends it again on a new connection without early data.
NET_ERROR(EARLY_DATA_REJECTED, -508)
// The client sent early data (0-RTT) but the server negotiated TLS 1.2
// (RFC 8446 D.3): retried on a new connection without early data.
NET_ERROR(WRONG_VERSION_ON_EARLY_DATA, -509)
// The server's compressed Certificate message (RFC 8879) did not decompress
// to the size it announced.
NET_ERROR(SSL_CERT_DECOMPRESSION_FAILED, -510)
// Encrypted ClientHello (ECH, draft-ietf-tls-esni-13 as BoringSSL speaks it;
// the configuration from the origin's DNS HTTPS record): Chromium's names.
// The server did not accept the ECH configuration offered (it decrypted
// nothing: a stale or unknown configuration) and authenticated that with a
// certificate for the configuration's public name; the connection cannot
// carry the request. The connect job retries once with the server's retry
// configurations (or, when it sent none, without ECH); this error remains
// when the retry was rejected too, or with --ech hard when no configuration
// could be had.
NET_ERROR(ECH_NOT_NEGOTIATED, -511)
// The server rejected ECH and its certificate is not valid for the ECH
// configuration's public name: its retry configurations cannot be trusted
// and the connection fails (Chromium's ERR_ECH_FALLBACK_CERTIFICATE_INVALID).
NET_ERROR(ECH_FALLBACK_CERTIFICATE_INVALID, -512)
// The ECHConfigList to offer (from the HTTPS record, or --ech ecl:) is not
// one BoringSSL accepts.
NET_ERROR(INVALID_ECH_CONFIG_LIST, -513)

// A SPDY framing or session error.
NET_ERROR(SPDY_PROTOCOL_ERROR, -600)

// A prefetched certificate bundle failed to parse or verify.
NET_ERROR(PREFETCH_BUNDLE_INVALID, -650)

// The server rejected a Snap Start attempt.
NET_ERROR(SNAP_START_REJECTED, -700)

// No key could be generated for the origin-bound certificate the server asked
// for (the key pool's worker failed).
NET_ERROR(OBC_KEY_GENERATION_FAILED, -750)
// The origin-bound certificate store could not supply a certificate for the
// connection's origin (no scope for it, or the store failed).
NET_ERROR(OBC_CERT_UNAVAILABLE, -751)
// The origin-bound certificate and its key could not be installed on the TLS
// connection.
NET_ERROR(OBC_CERT_INSTALL_FAILED, -752)

// A SPDY header block could not be decompressed: zlib failed, the peer's
// stream named another dictionary, or the peer ended its zlib stream.
NET_ERROR(SPDY_COMPRESSION_ERROR, -601)
// A SPDY frame, or a header block once decompressed, exceeded a size limit.
NET_ERROR(SPDY_FRAME_SIZE_ERROR, -602)
// The server reset a SPDY stream with INVALID_CREDENTIALS: the request's
// origin had no acceptable client certificate on that session. Retry the
// request on a new connection made directly to its origin.
NET_ERROR(SPDY_INVALID_CREDENTIALS, -603)
// The server did not process the SPDY stream: it reset it with
// REFUSED_STREAM, or its GOAWAY named a lower last-good stream id, or the
// session was going away before the stream could start. Safe to retry on a
// new connection.
NET_ERROR(SPDY_SERVER_REFUSED_STREAM, -604)
// A SPDY stream broke flow control: the peer sent more than the window
// allowed, or a WINDOW_UPDATE overflowed it, or the peer reset the stream
// with FLOW_CONTROL_ERROR.
NET_ERROR(SPDY_FLOW_CONTROL_ERROR, -605)
// The peer reset the SPDY stream (CANCEL, INTERNAL_ERROR, STREAM_IN_USE, ...
// any status without a more specific error).
NET_ERROR(SPDY_STREAM_RESET, -606)
// The server sent GOAWAY with an error status (PROTOCOL_ERROR or
// INTERNAL_ERROR) and closed the session: it rejected something we sent (a
// frame it could not parse, a CREDENTIAL whose proof did not verify).
NET_ERROR(SPDY_GOAWAY_ERROR, -607)
// No CREDENTIAL frame could be built for the request's client certificate:
// the connection has no TLS keying-material exporter (plain SPDY), the
// server's certificate vector has no slots, or signing the proof failed.
NET_ERROR(SPDY_CREDENTIAL_UNAVAILABLE, -608)
// A SPDY PING went unanswered within its timeout.
NET_ERROR(SPDY_PING_FAILED, -609)

// HTTP/2 (RFC 9113, net/http2), Chromium's names.
// The HTTP/2 session failed on a protocol violation: the server broke RFC
// 9113 (nghttp2 answered with GOAWAY PROTOCOL_ERROR), or reset the stream
// with PROTOCOL_ERROR.
NET_ERROR(HTTP2_PROTOCOL_ERROR, -620)
// The server reset the HTTP/2 stream (RST_STREAM CANCEL, INTERNAL_ERROR,
// STREAM_CLOSED, NO_ERROR before the response ended, ... any code without a
// more specific error) before its response was complete.
NET_ERROR(HTTP2_STREAM_CLOSED, -621)
// The server did not process the HTTP/2 stream: RST_STREAM REFUSED_STREAM,
// a GOAWAY whose last stream id is below it, or the session went away
// before its HEADERS were sent. Safe to retry on another connection.
NET_ERROR(HTTP2_SERVER_REFUSED_STREAM, -622)
// HTTP/2 flow control broke: the server sent more DATA than the window we
// advertised, overflowed a window with WINDOW_UPDATE, or reset the stream
// with FLOW_CONTROL_ERROR.
NET_ERROR(HTTP2_FLOW_CONTROL_ERROR, -623)
// An HTTP/2 PING went unanswered within its timeout: the connection is
// presumed dead.
NET_ERROR(HTTP2_PING_FAILED, -624)
// The server sent GOAWAY with an error code: the streams it had not
// finished fail (those above its last stream id are refused instead).
NET_ERROR(HTTP2_GOAWAY_FRAME, -625)
// HPACK failed: the server's header block did not decode (COMPRESSION_ERROR).
NET_ERROR(HTTP2_COMPRESSION_ERROR, -626)
// An HTTP/2 frame exceeded the size allowed (FRAME_SIZE_ERROR).
NET_ERROR(HTTP2_FRAME_SIZE_ERROR, -627)
// The server's connection preface (its SETTINGS frame) did not arrive within
// the session's settings timeout.
NET_ERROR(HTTP2_SETTINGS_TIMEOUT, -628)
// The server flooded the HTTP/2 session (PING or SETTINGS it wants acked
// faster than it reads our acks, rapid resets, endless CONTINUATION frames):
// nghttp2 gave up on it.
NET_ERROR(HTTP2_FLOOD_DETECTED, -629)
// The server wants HTTP/1.1 for this request: it reset the stream, or sent
// GOAWAY, with HTTP_1_1_REQUIRED (RFC 9113 7). The transaction sends the
// request again over HTTP/1.1 on a new connection and remembers the origin.
NET_ERROR(HTTP_1_1_REQUIRED, -630)

// QUIC (net/quic, issue 25): one QUIC v1 connection on ngtcp2.
// A QUIC transport error: the peer's packets broke RFC 9000 (ngtcp2 closed
// the connection with the code in the detail), or the peer closed it with a
// transport error code other than NO_ERROR.
NET_ERROR(QUIC_PROTOCOL_ERROR, -800)
// The QUIC handshake did not complete within the handshake timeout: no UDP
// answer from the server (a dropped UDP path), or an incomplete handshake.
NET_ERROR(QUIC_HANDSHAKE_TIMEOUT, -801)
// The QUIC handshake failed: a TLS alert (the detail names it), no common
// ALPN (h3), or the server's transport parameters were unusable.
// Certificate failures keep their ERR_CERT_* name.
NET_ERROR(QUIC_HANDSHAKE_FAILED, -802)
// No packet from the server within the idle timeout (RFC 9000 10.1): the
// server stopped answering.
NET_ERROR(QUIC_IDLE_TIMEOUT, -803)
// The server closed the connection (CONNECTION_CLOSE) with NO_ERROR or an
// application code while requests were still open.
NET_ERROR(QUIC_PEER_CLOSED, -804)
// Version negotiation: the server supports no QUIC version we speak.
NET_ERROR(QUIC_VERSION_NEGOTIATION_FAILED, -805)
// The server sent a stateless reset: it has lost the connection's state.
NET_ERROR(QUIC_STATELESS_RESET, -806)
// HTTP/3 (net/quic's Http3Session on nghttp3).
// An HTTP/3 framing or control-stream error (H3_FRAME_UNEXPECTED,
// H3_FRAME_ERROR, H3_CLOSED_CRITICAL_STREAM, H3_MISSING_SETTINGS, ...): the
// detail has the code.
NET_ERROR(HTTP3_PROTOCOL_ERROR, -820)
// The server reset the HTTP/3 stream (H3_INTERNAL_ERROR, H3_REQUEST_CANCELLED
// after it was processed, ...) before its response was complete.
NET_ERROR(HTTP3_STREAM_CLOSED, -821)
// The server did not process the request: H3_REQUEST_REJECTED, a GOAWAY
// below the stream's id, or the connection went away before the request
// left. Safe to retry on another connection.
NET_ERROR(HTTP3_SERVER_REFUSED_STREAM, -822)
// QPACK failed: a header block did not decode (QPACK_DECOMPRESSION_FAILED,
// encoder or decoder stream errors).
NET_ERROR(HTTP3_QPACK_ERROR, -823)
// The response is malformed as HTTP/3 (H3_MESSAGE_ERROR: no or a bad
// :status, a pseudo-header out of place, DATA before HEADERS).
NET_ERROR(HTTP3_MESSAGE_ERROR, -824)
