// QuicClientContext: what every QUIC connection of one client shares — a
// BoringSSL SSL_CTX set up for QUIC (TLS 1.3 only, ngtcp2's BoringSSL
// crypto helper's SSL_QUIC_METHOD), the certificate verifier every
// handshake asks (the same CertVerifier TCP's TLS uses, SSLClientContext),
// so a QUIC server's chain gets the same verification, revocation and
// prevalidation and the same cert.* trace, and the TLS 1.3 session tickets
// QUIC servers gave, for resumption and 0-RTT.
//
// Tickets live in an SSLClientSessionCache of its own (the class TCP's
// SSLClientContext uses, keyed "host:port", LRU-bounded, single use), not
// TCP's: BoringSSL resumes a QUIC session only on QUIC. Each ticket carries
// the server's transport parameters of the connection that got it (ex data
// on the SSL_SESSION), which 0-RTT must remember (RFC 9000 7.4.1).
//
// It also keeps the address validation tokens servers gave in NEW_TOKEN
// frames (RFC 9000 8.1.3): the next connection to that server sends one in
// its Initial, so the server may validate our address at once and answer
// beyond the 3x anti-amplification limit. Memory only (never written to
// disk), bounded (256 servers, 4 tokens each, 512 bytes a token, 24 hours
// old at most), each token used once (RFC 9000 8.1.3: reuse would let
// observers link connections).
//
// Its own SSL_CTX: a QUIC method on the TCP context would turn its TLS
// connections into QUIC ones. Owned by the HttpNetworkSession (or a test);
// outlives every QuicSession made with it. The verifier is not owned and
// must outlive it. Network-thread affine.

#ifndef NET_QUIC_QUIC_CLIENT_CONTEXT_H_
#define NET_QUIC_QUIC_CLIENT_CONTEXT_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "net/ssl/ssl_client_session_cache.h"

namespace net {

// A ticket for resumption and the server's 0-RTT transport parameters
// (ngtcp2_conn_encode_0rtt_transport_params' encoding; empty: no 0-RTT).
struct QuicResumption {
  bssl::UniquePtr<SSL_SESSION> session;
  std::string transport_params;
};

class QuicClientContext {
 public:
  explicit QuicClientContext(CertVerifier* verifier);
  ~QuicClientContext();
  QuicClientContext(const QuicClientContext&) = delete;
  QuicClientContext& operator=(const QuicClientContext&) = delete;

  // Null if BoringSSL could not make or configure it (ok() false).
  SSL_CTX* ssl_ctx() { return ssl_ctx_.get(); }
  bool ok() const { return ssl_ctx_ != nullptr; }
  CertVerifier* cert_verifier() { return verifier_; }

  // Whether connections offer early data when they resume (QuicSession
  // asks; on by default, as Chromium's QUIC).
  bool early_data_enabled() const { return early_data_enabled_; }
  void set_early_data_enabled(bool enabled) { early_data_enabled_ = enabled; }

  // Keeps |session| (a ticket the server at |key|, "host:port", gave) with
  // the server's 0-RTT |transport_params| (at most 4 KB; longer: kept
  // without, so no 0-RTT from it).
  void AddSession(const std::string& key, bssl::UniquePtr<SSL_SESSION> session,
                  std::string transport_params);
  // A ticket for |key| usable now, or a null session.
  QuicResumption LookupSession(const std::string& key);
  SSLClientSessionCache* session_cache() { return &session_cache_; }

  // Bounds of the token store.
  static constexpr size_t kMaxTokenServers = 256;
  static constexpr size_t kMaxTokensPerServer = 4;
  static constexpr size_t kMaxTokenSize = 512;
  static constexpr absl::Duration kMaxTokenAge = absl::Hours(24);

  // Keeps |token| (from a NEW_TOKEN frame of the server at |key|,
  // "host:port", received at |now|). Empty or longer than kMaxTokenSize:
  // dropped. The server's oldest token goes beyond kMaxTokensPerServer,
  // the server whose last token came longest ago beyond kMaxTokenServers.
  void AddToken(const std::string& key, std::string token, absl::Time now);
  // Removes and returns the newest token for |key| not older than
  // kMaxTokenAge at |now| (older ones are dropped); "" if none.
  std::string TakeToken(const std::string& key, absl::Time now);
  // Tokens kept for |key| (tests).
  size_t TokenCount(const std::string& key) const;

 private:
  struct Token {
    std::string value;
    absl::Time received;
  };
  struct ServerTokens {
    std::deque<Token> tokens;  // oldest first
    uint64_t last_added = 0;   // token_seq_ when the last one came
  };

  bssl::UniquePtr<SSL_CTX> ssl_ctx_;
  CertVerifier* const verifier_;
  bool early_data_enabled_ = true;
  SSLClientSessionCache session_cache_{/*max_keys=*/256,
                                       /*max_sessions_per_key=*/4};
  std::map<std::string, ServerTokens> tokens_;
  uint64_t token_seq_ = 0;
};

}  // namespace net

#endif  // NET_QUIC_QUIC_CLIENT_CONTEXT_H_
