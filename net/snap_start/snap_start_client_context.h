// SnapStartClientContext: what a client keeps per server for the Snap Start
// core — the Snap Start information learned from a full handshake (the
// verified chain, the ServerHello that carried the server's orbit, the cipher
// suite) and TLS 1.2 session tickets — shared by every SnapStartClientSocket
// of one HttpNetworkSession.
//
// Information can persist in a profile file (public data only: chains,
// ServerHello, orbit; never master secrets or tickets). Loaded information is
// not trusted: a socket re-verifies the chain with the CertVerifier before it
// predicts with it (the prevalidation hook); information learned in this
// process from a verified handshake is marked verified.
//
// Owned by the session; outlives its sockets. Network-thread affine.

#ifndef NET_SNAP_START_SNAP_START_CLIENT_CONTEXT_H_
#define NET_SNAP_START_SNAP_START_CLIENT_CONTEXT_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cert/cert_verifier.h"
#include "net/base/thread_checker.h"
#include "net/snap_start/tls12_messages.h"

namespace net {

struct SnapStartInfo {
  std::vector<std::string> chain_der;  // leaf first
  uint16_t cipher_suite = 0;
  Orbit orbit{};
  // The body of a ServerHello that carried the server's Snap Start extension;
  // the template the client predicts from.
  std::string server_hello;
  // Verified in this process (learned from a verified handshake, or
  // re-verified since loading).
  bool verified = false;
  // That verification (the verified chain, revocation), which a later
  // connection relying on |verified| reports as its own. Not persisted.
  CertVerifyResult verify_result;
};

struct Tls12ClientSession {
  std::string ticket;
  std::string master_secret;
  uint16_t cipher_suite = 0;
  std::vector<std::string> chain_der;
  // The master secret is the extended one (RFC 7627); a resumption must
  // agree.
  bool extended_master_secret = false;
};

struct SnapStartClientOptions {
  // Attempt Snap Start when information is at hand (otherwise only learn).
  bool attempt = true;
  // Offer and use TLS 1.2 session tickets.
  bool tickets = true;
  // Where information persists ("" = memory only, as for private profiles).
  std::string state_file;
};

class SnapStartClientContext {
 public:
  // Loads |options.state_file| if it exists; a corrupt file is an error
  // (DataLoss, naming the file and saying why). The file is the Serialize
  // payload in net/base/framed_file's frame (magic "SSC1", version 1), so a
  // cut, flipped or appended byte is detected, as in every profile store.
  static constexpr uint32_t kFileMagic = 0x31435353;  // "SSC1" little-endian
  static constexpr uint32_t kFileVersion = 1;
  static absl::StatusOr<std::unique_ptr<SnapStartClientContext>> Create(
      CertVerifier* verifier, const SnapStartClientOptions& options);

  CertVerifier* cert_verifier() { return verifier_; }
  const SnapStartClientOptions& options() const { return options_; }

  // Keys are "host:port". A socket copies what it needs when it connects:
  // the pointers returned here are valid only until the next change.
  const SnapStartInfo* GetInfo(const std::string& key) const;
  // PutInfo stores (and persists, if configured) the information.
  void PutInfo(const std::string& key, SnapStartInfo info);
  void MarkVerified(const std::string& key);
  // MarkVerified marks the entry verified only if it is still |checked| (the
  // copy a socket verified; another socket may have replaced it meanwhile).
  void MarkVerified(const std::string& key, const SnapStartInfo& checked);
  void RemoveInfo(const std::string& key);
  // RemoveInfo removes the entry only if it is still |stale|.
  void RemoveInfo(const std::string& key, const SnapStartInfo& stale);

  const Tls12ClientSession* GetSession(const std::string& key) const;
  void PutSession(const std::string& key, Tls12ClientSession session);
  void RemoveSession(const std::string& key);

  // Serialization of the information map (the state file's payload;
  // exposed for tests and fuzzing).
  static std::string Serialize(const std::map<std::string, SnapStartInfo>& m);
  static absl::StatusOr<std::map<std::string, SnapStartInfo>> Parse(
      absl::string_view data);

  // The last persistence error, if any (reported, never fatal).
  const std::string& persist_error() const { return persist_error_; }

 private:
  SnapStartClientContext(CertVerifier* verifier,
                         const SnapStartClientOptions& options);
  void Persist();

  CertVerifier* const verifier_;
  const SnapStartClientOptions options_;
  std::map<std::string, SnapStartInfo> infos_;
  std::map<std::string, Tls12ClientSession> sessions_;
  std::string persist_error_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_CLIENT_CONTEXT_H_
