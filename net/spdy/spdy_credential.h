// SPDY/3 CREDENTIAL (draft 3, section 2.6.9; ../shared/SPECS.md section 6):
// the proof of possession a CREDENTIAL frame carries, its verification, and
// the client's view of the server's certificate vector (SpdyCredentialState).
//
// The proof is the draft's flavour: a TLS digitally-signed structure
// (RFC 5246 section 4.7: a 2-byte SignatureAndHashAlgorithm, then a
// u16-length signature) over 32 bytes of RFC 5705 keying material exported
// with the label "EXPORTER SPDY certificate proof" and the empty string as
// context, and the frame's certificate field holds DER certificates, leaf
// first. (Chromium's 2013 flavour, which signed a constant plus tls-unique
// and sent a raw public key, is not implemented; Jetty and our test server
// parse the draft's.)
//
// Stateless functions plus one plain class; nothing here does I/O.

#ifndef NET_SPDY_SPDY_CREDENTIAL_H_
#define NET_SPDY_SPDY_CREDENTIAL_H_

#include <openssl/base.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

// The RFC 5705 exporter label of the proof (draft 3, 2.6.9).
inline constexpr char kSpdyCredentialExporterLabel[] =
    "EXPORTER SPDY certificate proof";
// The draft signs "a 32 byte TLS extractor value ... using the empty string
// as context". RFC 5705 tells "no context" from "a zero-length context"
// (the latter adds a 2-byte zero length to the PRF seed in TLS 1.2; TLS 1.3
// hashes the context either way, so there they agree). The draft's words
// name a context, the empty string, so the exporter is called with a
// zero-length context. Client and server here share this constant.
inline constexpr bool kSpdyCredentialExporterHasContext = true;
inline constexpr size_t kSpdyCredentialSecretSize = 32;
// A SYN_STREAM's slot field is 8 bits, so no vector is used beyond this.
inline constexpr size_t kSpdyMaxCredentialSlots = 255;

// TLS SignatureScheme code points used in proofs: the TLS 1.2
// (hash, signature) pairs for SHA-256 with ECDSA and RSA PKCS#1 v1.5, and
// RFC 8422's Ed25519.
inline constexpr uint16_t kSpdyProofEcdsaSha256 = 0x0403;
inline constexpr uint16_t kSpdyProofRsaPkcs1Sha256 = 0x0401;
inline constexpr uint16_t kSpdyProofEd25519 = 0x0807;

// SpdyKeyingMaterialExporter fills |*out| with |length| bytes of the TLS
// connection's RFC 5705 keying material for |label| (with the zero-length
// context above) and returns OK, or returns a net error. A session over a
// plain (non-TLS) socket has none.
using SpdyKeyingMaterialExporter = std::function<int(
    absl::string_view label, size_t length, std::string* out)>;

// SignSpdyCredentialProof returns the digitally-signed proof over |secret|
// (the exported keying material) with |key|: ECDSA P-256 with SHA-256
// (DER ECDSA-Sig-Value), RSA PKCS#1 v1.5 with SHA-256, or Ed25519.
// InvalidArgument for another key type, Internal if signing fails.
[[nodiscard]] absl::StatusOr<std::string> SignSpdyCredentialProof(
    absl::string_view secret, EVP_PKEY* key);

// VerifySpdyCredentialProof checks that |proof| is a well-formed
// digitally-signed structure (nothing left over) whose algorithm fits the
// key of |leaf_cert_der| and whose signature over |secret| verifies with it.
// InvalidArgument says what is wrong: a certificate that does not parse,
// a malformed proof, an algorithm that does not match the key, or a
// signature that does not verify.
absl::Status VerifySpdyCredentialProof(absl::string_view proof,
                                       absl::string_view secret,
                                       absl::string_view leaf_cert_der);

// BuildSpdyCredentialFrame returns the CREDENTIAL frame for |slot| carrying
// |cert_chain_der| (leaf first) and a proof over |secret| with |key|.
// Errors as SignSpdyCredentialProof, and InvalidArgument for slot 0 or an
// empty chain.
[[nodiscard]] absl::StatusOr<SpdyCredentialIR> BuildSpdyCredentialFrame(
    uint16_t slot, absl::string_view secret,
    const std::vector<std::string>& cert_chain_der, EVP_PKEY* key);

// SpdyCredentialState is the client's copy of the server's client
// certificate vector on one session: which certificate sits in which slot.
// Slots are keyed by certificate (its SHA-256), not by origin: under eTLD+1
// scopes several origins share one OBC and so one slot, and what the server
// keeps per slot is a certificate.
//
// The vector starts with kSpdyInitialCredentialSlots slots. A certificate
// the TLS handshake presented sits in slot 1 (the draft: the server copies
// it there). New certificates take the lowest empty slot, else the least
// recently used one (its old certificate is then sent again when next
// needed). SETTINGS_CLIENT_CERTIFICATE_VECTOR_SIZE resizes it, keeping the
// lower slots. Not thread-safe.
class SpdyCredentialState {
 public:
  explicit SpdyCredentialState(size_t num_slots = kSpdyInitialCredentialSlots);

  // SetHandshakeCertificate puts |cert_der| in slot 1 (if there is one).
  void SetHandshakeCertificate(absl::string_view cert_der);

  // FindSlot returns the slot holding |cert_der| (marking it used), or 0.
  size_t FindSlot(absl::string_view cert_der);
  // Assign puts |cert_der| in a slot and returns it (1-based): an empty
  // one, else the least recently used. 0 if the vector has no slots.
  size_t Assign(absl::string_view cert_der);
  // Release empties |slot| (a CREDENTIAL for it could not be sent).
  void Release(size_t slot);
  // Resize sets the vector size (capped at kSpdyMaxCredentialSlots),
  // dropping slots above it.
  void Resize(size_t num_slots);

  size_t num_slots() const { return slots_.size(); }
  // How many slots hold a certificate.
  size_t used_slots() const;

 private:
  struct Slot {
    std::string cert_hash;  // SHA-256 of the DER certificate; empty: free
    uint64_t last_used = 0;
  };
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace net

#endif  // NET_SPDY_SPDY_CREDENTIAL_H_
