// Certificate compression (RFC 8879) through BoringSSL's hooks: zlib
// (RFC 1950, algorithm 1) and brotli (RFC 7932, algorithm 2). TLS 1.3 only.
//
// The client registers decompressors on its SSL_CTX, which offers them in
// the compress_certificate extension; the server registers compressors in
// its preference order and compresses its Certificate message when the
// client offers one of them. Each side's callback records the message's
// size before and after in the SSLInfo the socket attached to its SSL
// (AttachSSLInfo, openssl_util.h): SSLInfo::cert_compression.
//
// Decompression is strict: the compressed data must be exactly one complete
// stream and decode to exactly the length the CompressedCertificate message
// announced (which BoringSSL caps at its certificate-list limit), else the
// handshake fails with ERR_SSL_CERT_DECOMPRESSION_FAILED.

#ifndef NET_SSL_CERT_COMPRESSION_H_
#define NET_SSL_CERT_COMPRESSION_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

enum class CertCompressionAlgorithm : uint16_t {
  kZlib = TLSEXT_cert_compression_zlib,
  kBrotli = TLSEXT_cert_compression_brotli,
};

// "zlib" or "brotli".
const char* CertCompressionAlgorithmName(CertCompressionAlgorithm algorithm);
// The name of an algorithm ID ("zlib", "brotli", or "alg-N").
std::string CertCompressionAlgorithmIdName(uint16_t id);

// ParseCertCompressionList parses "zlib", "brotli", "brotli,zlib" (in
// preference order; no duplicates) or "off" (the empty list).
[[nodiscard]] absl::StatusOr<std::vector<CertCompressionAlgorithm>>
ParseCertCompressionList(absl::string_view list);
// "brotli,zlib", or "off" for the empty list.
std::string CertCompressionListToString(
    const std::vector<CertCompressionAlgorithm>& algorithms);

// Compresses |in| (a Certificate message body) into |out|.
bool CompressCertificateMessage(CertCompressionAlgorithm algorithm,
                                absl::string_view in, std::string* out);
// Decompresses |in| into |out|; false unless |in| is one complete stream
// that decodes to exactly |uncompressed_len| bytes.
bool DecompressCertificateMessage(CertCompressionAlgorithm algorithm,
                                  absl::string_view in, size_t uncompressed_len,
                                  std::string* out);

// Client: offer |algorithms| (in this order) and decompress with them.
// Server: compress with |algorithms|, the first the client offers winning.
// False if BoringSSL refused one (registered twice).
bool AddCertDecompressionAlgorithms(
    SSL_CTX* ctx, const std::vector<CertCompressionAlgorithm>& algorithms);
bool AddCertCompressionAlgorithms(
    SSL_CTX* ctx, const std::vector<CertCompressionAlgorithm>& algorithms);

}  // namespace net

#endif  // NET_SSL_CERT_COMPRESSION_H_
