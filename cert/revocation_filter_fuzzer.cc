// Fuzzes the revocation filter and stash parsers (cert/revocation_filter.h)
// with arbitrary bytes, as they are and wrapped in a header and a correct
// checksum (so that mutations reach the body's checks, which a checksum would
// otherwise stop). Beyond "no crash":
//  - every refusal carries a named RevocationFilterError;
//  - what parses is canonical: serializing it gives back the same bytes;
//  - a parsed filter answers lookups (any key) without trouble, and the same
//    way twice.

#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cert/revocation_filter.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "revocation_filter_fuzzer: %s\n", what);
  std::abort();
}

std::string Framed(const char* magic, const std::string& body) {
  std::string out(magic, 4);
  out.push_back(0);
  out.push_back(1);
  const uint32_t len = static_cast<uint32_t>(body.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((len >> shift) & 0xff));
  out += body;
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(out.data()), out.size(), digest);
  out.append(reinterpret_cast<const char*>(digest), sizeof(digest));
  return out;
}

void TryFilter(const std::string& bytes) {
  absl::StatusOr<net::RevocationFilter> filter =
      net::RevocationFilter::Parse(bytes);
  if (!filter.ok()) {
    Check(net::GetRevocationFilterError(filter.status()).has_value(),
          "a filter refused without a named error");
    return;
  }
  Check(filter->Serialize() == bytes, "a parsed filter is not canonical");
  // Keys from the input itself, and the first issuer's.
  net::RevocationFilterKey key;
  key.issuer_spki_sha256 = filter->issuers()[0].spki_sha256;
  key.serial = bytes.substr(0, 1 + bytes.size() % net::kMaxSerialBytes);
  size_t level = 0;
  bool revoked = filter->CascadeSaysRevoked(key, &level);
  Check(level >= 1 && level <= filter->levels().size() + 1, "bad level");
  Check(filter->CascadeSaysRevoked(key) == revoked, "lookups disagree");
  net::RevocationFilter::Answer answer = filter->Check(key, filter->coverage());
  Check(answer == (revoked ? net::RevocationFilter::Answer::kRevoked
                           : net::RevocationFilter::Answer::kGood),
        "a covered key's answer is not the cascade's");
  Check(filter->Check(key, filter->coverage() + absl::Seconds(1)) ==
            net::RevocationFilter::Answer::kNotCovered,
        "a key past the coverage is covered");
}

void TryStash(const std::string& bytes) {
  absl::StatusOr<std::vector<net::RevocationStash>> all =
      net::RevocationStash::ParseAll(bytes);
  if (!all.ok()) {
    Check(net::GetRevocationFilterError(all.status()).has_value(),
          "stashes refused without a named error");
  } else {
    std::string again;
    for (const net::RevocationStash& stash : *all) {
      again += stash.Serialize();
      for (const net::RevocationFilterKey& key : stash.contents().revoked)
        Check(stash.Contains(key), "a stash lost an entry");
    }
    Check(again == bytes, "parsed stashes are not canonical");
  }
  absl::StatusOr<net::RevocationStash> one = net::RevocationStash::Parse(bytes);
  if (!one.ok()) {
    Check(net::GetRevocationFilterError(one.status()).has_value(),
          "a stash refused without a named error");
  } else {
    Check(one->Serialize() == bytes, "a parsed stash is not canonical");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  TryFilter(bytes);
  TryStash(bytes);
  // The input as a body behind a correct header and checksum; and a seed's
  // body (its bytes between header and checksum) mutated in place.
  TryFilter(Framed(net::RevocationFilter::kMagic, bytes));
  TryStash(Framed(net::RevocationStash::kMagic, bytes));
  if (size >= 42) {
    const std::string body = bytes.substr(10, size - 42);
    TryFilter(Framed(net::RevocationFilter::kMagic, body));
    TryStash(Framed(net::RevocationStash::kMagic, body));
  }
  return 0;
}
