#include "net/ssl/cert_compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <openssl/bytestring.h>
#include <openssl/pool.h>
#include <zlib.h>

#include <map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/ssl/openssl_util.h"
#include "net/ssl/ssl_info.h"

namespace net {
namespace {

bool ZlibCompress(absl::string_view in, std::string* out) {
  uLongf len = compressBound(in.size());
  out->resize(len);
  if (compress2(reinterpret_cast<Bytef*>(out->data()), &len,
                reinterpret_cast<const Bytef*>(in.data()), in.size(),
                Z_BEST_COMPRESSION) != Z_OK) {
    return false;
  }
  out->resize(len);
  return true;
}

bool ZlibDecompress(absl::string_view in, size_t uncompressed_len,
                    std::string* out) {
  z_stream stream = {};
  if (inflateInit(&stream) != Z_OK) return false;
  out->resize(uncompressed_len);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());
  stream.next_out = reinterpret_cast<Bytef*>(out->data());
  stream.avail_out = static_cast<uInt>(uncompressed_len);
  int rv = inflate(&stream, Z_FINISH);
  // One complete stream, all of the input, exactly the announced length
  // (more output than that leaves the stream unfinished: Z_BUF_ERROR).
  bool ok = rv == Z_STREAM_END && stream.avail_in == 0 &&
            stream.total_out == uncompressed_len;
  inflateEnd(&stream);
  return ok;
}

bool BrotliCompress(absl::string_view in, std::string* out) {
  size_t len = BrotliEncoderMaxCompressedSize(in.size());
  if (len == 0) return false;
  out->resize(len);
  if (!BrotliEncoderCompress(BROTLI_MAX_QUALITY, BROTLI_DEFAULT_WINDOW,
                             BROTLI_MODE_GENERIC, in.size(),
                             reinterpret_cast<const uint8_t*>(in.data()), &len,
                             reinterpret_cast<uint8_t*>(out->data()))) {
    return false;
  }
  out->resize(len);
  return true;
}

bool BrotliDecompress(absl::string_view in, size_t uncompressed_len,
                      std::string* out) {
  BrotliDecoderState* state =
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (!state) return false;
  out->resize(uncompressed_len);
  size_t available_in = in.size();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(in.data());
  size_t available_out = uncompressed_len;
  uint8_t* next_out = reinterpret_cast<uint8_t*>(out->data());
  size_t total_out = 0;
  BrotliDecoderResult rv = BrotliDecoderDecompressStream(
      state, &available_in, &next_in, &available_out, &next_out, &total_out);
  BrotliDecoderDestroyInstance(state);
  // More output than announced stops with NEEDS_MORE_OUTPUT.
  return rv == BROTLI_DECODER_RESULT_SUCCESS && available_in == 0 &&
         total_out == uncompressed_len;
}

// The server compresses the same chain in every full handshake (BoringSSL
// caches nothing): keep the last few results.
class CompressionCache {
 public:
  bool Compress(CertCompressionAlgorithm algorithm, absl::string_view in,
                std::string* out) {
    auto key =
        std::make_pair(static_cast<uint16_t>(algorithm), std::string(in));
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end()) {
        *out = it->second;
        return true;
      }
    }
    if (!CompressCertificateMessage(algorithm, in, out)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.emplace(std::move(key), *out);
    return true;
  }

 private:
  static constexpr size_t kMaxEntries = 16;
  std::mutex mu_;
  std::map<std::pair<uint16_t, std::string>, std::string> entries_
      ABSL_GUARDED_BY(mu_);
};

CompressionCache* GetCompressionCache() {
  static CompressionCache* cache = new CompressionCache();
  return cache;
}

void Record(SSL* ssl, CertCompressionAlgorithm algorithm, size_t compressed,
            size_t uncompressed) {
  if (SSLInfo* info = AttachedSSLInfo(ssl)) {
    info->cert_compression.algorithm = CertCompressionAlgorithmName(algorithm);
    info->cert_compression.compressed_bytes = static_cast<int64_t>(compressed);
    info->cert_compression.uncompressed_bytes =
        static_cast<int64_t>(uncompressed);
  }
}

template <CertCompressionAlgorithm kAlgorithm>
int CompressCallback(SSL* ssl, CBB* out, const uint8_t* in, size_t in_len) {
  std::string compressed;
  if (!GetCompressionCache()->Compress(
          kAlgorithm,
          absl::string_view(reinterpret_cast<const char*>(in), in_len),
          &compressed) ||
      !CBB_add_bytes(out, reinterpret_cast<const uint8_t*>(compressed.data()),
                     compressed.size())) {
    return 0;
  }
  Record(ssl, kAlgorithm, compressed.size(), in_len);
  return 1;
}

template <CertCompressionAlgorithm kAlgorithm>
int DecompressCallback(SSL* ssl, CRYPTO_BUFFER** out, size_t uncompressed_len,
                       const uint8_t* in, size_t in_len) {
  std::string decompressed;
  if (!DecompressCertificateMessage(
          kAlgorithm,
          absl::string_view(reinterpret_cast<const char*>(in), in_len),
          uncompressed_len, &decompressed)) {
    return 0;
  }
  *out =
      CRYPTO_BUFFER_new(reinterpret_cast<const uint8_t*>(decompressed.data()),
                        decompressed.size(), nullptr);
  if (!*out) return 0;
  Record(ssl, kAlgorithm, in_len, uncompressed_len);
  return 1;
}

}  // namespace

const char* CertCompressionAlgorithmName(CertCompressionAlgorithm algorithm) {
  switch (algorithm) {
    case CertCompressionAlgorithm::kZlib:
      return "zlib";
    case CertCompressionAlgorithm::kBrotli:
      return "brotli";
  }
  return "unknown";
}

std::string CertCompressionAlgorithmIdName(uint16_t id) {
  switch (id) {
    case TLSEXT_cert_compression_zlib:
    case TLSEXT_cert_compression_brotli:
      return CertCompressionAlgorithmName(
          static_cast<CertCompressionAlgorithm>(id));
    default:
      return absl::StrCat("alg-", id);
  }
}

absl::StatusOr<std::vector<CertCompressionAlgorithm>> ParseCertCompressionList(
    absl::string_view list) {
  std::vector<CertCompressionAlgorithm> out;
  if (list == "off" || list == "none") return out;
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    CertCompressionAlgorithm algorithm;
    if (name == "zlib") {
      algorithm = CertCompressionAlgorithm::kZlib;
    } else if (name == "brotli") {
      algorithm = CertCompressionAlgorithm::kBrotli;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown certificate compression algorithm '", name,
                       "' (zlib, brotli, a list of both, or off)"));
    }
    for (CertCompressionAlgorithm seen : out) {
      if (seen == algorithm) {
        return absl::InvalidArgumentError(absl::StrCat(
            "certificate compression algorithm '", name, "' listed twice"));
      }
    }
    out.push_back(algorithm);
  }
  return out;
}

std::string CertCompressionListToString(
    const std::vector<CertCompressionAlgorithm>& algorithms) {
  if (algorithms.empty()) return "off";
  std::string out;
  for (CertCompressionAlgorithm algorithm : algorithms)
    absl::StrAppend(&out, out.empty() ? "" : ",",
                    CertCompressionAlgorithmName(algorithm));
  return out;
}

bool CompressCertificateMessage(CertCompressionAlgorithm algorithm,
                                absl::string_view in, std::string* out) {
  switch (algorithm) {
    case CertCompressionAlgorithm::kZlib:
      return ZlibCompress(in, out);
    case CertCompressionAlgorithm::kBrotli:
      return BrotliCompress(in, out);
  }
  return false;
}

bool DecompressCertificateMessage(CertCompressionAlgorithm algorithm,
                                  absl::string_view in, size_t uncompressed_len,
                                  std::string* out) {
  switch (algorithm) {
    case CertCompressionAlgorithm::kZlib:
      return ZlibDecompress(in, uncompressed_len, out);
    case CertCompressionAlgorithm::kBrotli:
      return BrotliDecompress(in, uncompressed_len, out);
  }
  return false;
}

bool AddCertDecompressionAlgorithms(
    SSL_CTX* ctx, const std::vector<CertCompressionAlgorithm>& algorithms) {
  for (CertCompressionAlgorithm algorithm : algorithms) {
    ssl_cert_decompression_func_t decompress =
        algorithm == CertCompressionAlgorithm::kZlib
            ? &DecompressCallback<CertCompressionAlgorithm::kZlib>
            : &DecompressCallback<CertCompressionAlgorithm::kBrotli>;
    if (!SSL_CTX_add_cert_compression_alg(ctx, static_cast<uint16_t>(algorithm),
                                          nullptr, decompress)) {
      return false;
    }
  }
  return true;
}

bool AddCertCompressionAlgorithms(
    SSL_CTX* ctx, const std::vector<CertCompressionAlgorithm>& algorithms) {
  for (CertCompressionAlgorithm algorithm : algorithms) {
    ssl_cert_compression_func_t compress =
        algorithm == CertCompressionAlgorithm::kZlib
            ? &CompressCallback<CertCompressionAlgorithm::kZlib>
            : &CompressCallback<CertCompressionAlgorithm::kBrotli>;
    if (!SSL_CTX_add_cert_compression_alg(ctx, static_cast<uint16_t>(algorithm),
                                          compress, nullptr)) {
      return false;
    }
  }
  return true;
}

}  // namespace net
