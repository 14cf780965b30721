// The numbered list of network errors, an X-macro included by net_errors.h.
//
// Numbers are stable and never reused. Ranges by area:
//     0- 99  system and generic
//   100-199  connection and socket
//   200-299  certificate and revocation
//   300-399  HTTP
//   400-499  DNS
//   500-599  TLS and cipher
//   600-649  SPDY
//   650-699  prefetch
//   700-749  Snap Start
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
// The socket is not connected.
NET_ERROR(SOCKET_NOT_CONNECTED, -15)
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
// The host name could not be resolved.
NET_ERROR(NAME_NOT_RESOLVED, -105)
// The Internet connection has been lost.
NET_ERROR(INTERNET_DISCONNECTED, -106)
// An SSL protocol error occurred.
NET_ERROR(SSL_PROTOCOL_ERROR, -107)
// The IP address or port number is invalid.
NET_ERROR(ADDRESS_INVALID, -108)
// The IP address is unreachable.
NET_ERROR(ADDRESS_UNREACHABLE, -109)
// The server requested a client certificate and none could be supplied.
NET_ERROR(SSL_CLIENT_AUTH_CERT_NEEDED, -110)
// A connection attempt timed out.
NET_ERROR(CONNECTION_TIMED_OUT, -118)
// The client and server do not support a common SSL protocol version or
// cipher suite.
NET_ERROR(SSL_VERSION_OR_CIPHER_MISMATCH, -113)
// The server closed the connection before the TLS handshake finished.
NET_ERROR(SSL_HANDSHAKE_CLOSED, -119)
// The address is already in use.
NET_ERROR(ADDRESS_IN_USE, -147)
// The server sent a fatal TLS alert for a bad record MAC or decryption.
NET_ERROR(SSL_BAD_RECORD_MAC_ALERT, -126)
// The socket is already connected.
NET_ERROR(SOCKET_IS_CONNECTED, -123)

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

// The TLS handshake failed for a reason BoringSSL reported.
NET_ERROR(SSL_HANDSHAKE_FAILED, -500)
// The server presented no certificate.
NET_ERROR(SSL_SERVER_CERT_MISSING, -501)
// The peer sent a fatal alert.
NET_ERROR(SSL_PEER_ALERT, -502)

// A SPDY framing or session error.
NET_ERROR(SPDY_PROTOCOL_ERROR, -600)

// A prefetched certificate bundle failed to parse or verify.
NET_ERROR(PREFETCH_BUNDLE_INVALID, -650)

// The server rejected a Snap Start attempt.
NET_ERROR(SNAP_START_REJECTED, -700)

// A SPDY header block could not be decompressed: zlib failed, the peer's
// stream named another dictionary, or the peer ended its zlib stream.
NET_ERROR(SPDY_COMPRESSION_ERROR, -601)
// A SPDY frame, or a header block once decompressed, exceeded a size limit.
NET_ERROR(SPDY_FRAME_SIZE_ERROR, -602)
