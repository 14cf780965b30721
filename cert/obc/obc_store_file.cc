#include "cert/obc/obc_store_file.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/obc_store.pb.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

namespace pb = ::netstack::cert::obc;

pb::ScopeMode ToProto(ScopeMode mode) {
  return mode == ScopeMode::kOrigin ? pb::SCOPE_MODE_ORIGIN
                                    : pb::SCOPE_MODE_REGISTRABLE_DOMAIN;
}

std::optional<ScopeMode> FromProto(pb::ScopeMode mode) {
  if (mode == pb::SCOPE_MODE_ORIGIN) return ScopeMode::kOrigin;
  if (mode == pb::SCOPE_MODE_REGISTRABLE_DOMAIN)
    return ScopeMode::kRegistrableDomain;
  return std::nullopt;
}

pb::KeyAlgorithm ToProto(KeyAlgorithm algorithm) {
  switch (algorithm) {
    case KeyAlgorithm::kEcdsaP256:
      return pb::KEY_ALGORITHM_ECDSA_P256;
    case KeyAlgorithm::kRsa1024:
      return pb::KEY_ALGORITHM_RSA_1024;
    case KeyAlgorithm::kRsa2048:
      return pb::KEY_ALGORITHM_RSA_2048;
    case KeyAlgorithm::kEd25519:
      return pb::KEY_ALGORITHM_ED25519;
  }
  return pb::KEY_ALGORITHM_UNSPECIFIED;
}

std::optional<KeyAlgorithm> FromProto(pb::KeyAlgorithm algorithm) {
  switch (algorithm) {
    case pb::KEY_ALGORITHM_ECDSA_P256:
      return KeyAlgorithm::kEcdsaP256;
    case pb::KEY_ALGORITHM_RSA_1024:
      return KeyAlgorithm::kRsa1024;
    case pb::KEY_ALGORITHM_RSA_2048:
      return KeyAlgorithm::kRsa2048;
    case pb::KEY_ALGORITHM_ED25519:
      return KeyAlgorithm::kEd25519;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<ObcRecord> ParseRecord(const pb::OriginBoundCert& proto) {
  std::optional<ScopeMode> mode = FromProto(proto.scope_mode());
  if (!mode.has_value()) return absl::DataLossError("unknown scope mode");
  absl::StatusOr<ObcScope> scope = ObcScope::FromStorage(*mode, proto.scope());
  if (!scope.ok())
    return absl::DataLossError(
        absl::StrCat("bad scope: ", scope.status().message()));
  std::string where = absl::StrCat("scope ", scope->ToString(), ": ");
  std::optional<KeyAlgorithm> algorithm = FromProto(proto.algorithm());
  if (!algorithm.has_value())
    return absl::DataLossError(absl::StrCat(where, "unknown key algorithm"));
  absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> key =
      ParsePrivateKey(proto.private_key());
  if (!key.ok())
    return absl::DataLossError(absl::StrCat(where, key.status().message()));
  if (KeyAlgorithmOf(key->get()) != algorithm)
    return absl::DataLossError(
        absl::StrCat(where, "key is not ", KeyAlgorithmToString(*algorithm)));
  if (absl::Status s = CheckCertificateForKey(proto.certificate(), key->get(),
                                              /*verify_signature=*/false);
      !s.ok())
    return absl::DataLossError(absl::StrCat(where, s.message()));
  ObcRecord record;
  record.scope = *std::move(scope);
  record.algorithm = *algorithm;
  record.cert_der = proto.certificate();
  record.key_pkcs8 = proto.private_key();
  record.key = std::move(*key);
  record.created_unix_seconds = proto.created_unix_seconds();
  return record;
}

}  // namespace

std::string ObcStoreFile::Serialize(
    const std::vector<std::shared_ptr<const ObcRecord>>& records) {
  pb::OriginBoundCerts certs;
  for (const auto& record : records) {
    pb::OriginBoundCert* cert = certs.add_certs();
    cert->set_scope_mode(ToProto(record->scope.mode()));
    cert->set_scope(record->scope.key());
    cert->set_algorithm(ToProto(record->algorithm));
    cert->set_certificate(record->cert_der);
    cert->set_private_key(record->key_pkcs8);
    cert->set_created_unix_seconds(record->created_unix_seconds);
  }
  return FrameFileContents(kMagic, kVersion, certs.SerializeAsString());
}

absl::StatusOr<std::vector<ObcRecord>> ObcStoreFile::Parse(
    const std::string& bytes, const std::string& name) {
  auto corrupt = [&name](absl::string_view why) {
    return CorruptFileError(
        name, why, "move it away to start with no origin-bound certificates");
  };
  absl::StatusOr<std::string> payload =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!payload.ok()) return corrupt(payload.status().message());
  pb::OriginBoundCerts certs;
  if (!certs.ParseFromString(*payload))
    return corrupt("payload does not parse");

  std::vector<ObcRecord> records;
  records.reserve(certs.certs_size());
  absl::flat_hash_set<std::string> seen;
  for (const pb::OriginBoundCert& cert : certs.certs()) {
    absl::StatusOr<ObcRecord> record = ParseRecord(cert);
    if (!record.ok()) return corrupt(record.status().message());
    if (!seen.insert(record->scope.ToString()).second)
      return corrupt(
          absl::StrCat("duplicate scope ", record->scope.ToString()));
    records.push_back(*std::move(record));
  }
  return records;
}

absl::StatusOr<std::vector<ObcRecord>> ObcStoreFile::Load(
    const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (absl::IsNotFound(bytes.status())) return std::vector<ObcRecord>();
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

absl::Status ObcStoreFile::Save(
    const std::string& path,
    const std::vector<std::shared_ptr<const ObcRecord>>& records) {
  return WriteFileAtomically(path, Serialize(records));
}

absl::StatusOr<std::unique_ptr<ProfileLock>> ProfileLock::Acquire(
    const std::string& dir) {
  absl::StatusOr<std::unique_ptr<FileLock>> lock = FileLock::Acquire(
      absl::StrCat(dir, "/", kFileName),
      absl::StrCat("the profile ", dir,
                   " is in use by another origin-bound certificate store"));
  if (!lock.ok()) return lock.status();
  return std::unique_ptr<ProfileLock>(new ProfileLock(*std::move(lock)));
}

absl::Status ObcFileWriter::Write(
    uint64_t seq,
    const std::vector<std::shared_ptr<const ObcRecord>>& records) {
  std::lock_guard<std::mutex> lock(mu_);
  if (seq <= written_seq_) return absl::OkStatus();
  absl::Status status = ObcStoreFile::Save(path_, records);
  if (status.ok()) written_seq_ = seq;
  return status;
}

}  // namespace net
