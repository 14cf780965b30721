#include "tools/revocation_filter/revocation_filter_tool.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cert/revocation_filter.h"
#include "cert/revocation_filter_builder.h"
#include "cert/revocation_filter_store.h"
#include "cert/x509_util.h"
#include "net/base/file_util.h"
#include "tools/revocation_filter/filter_inputs.h"

namespace net {
namespace {

constexpr char kUsage[] = R"(usage: revocation_filter COMMAND [FLAGS]

A CRLite revocation filter (a Bloom-filter cascade, Larisch et al., IEEE S&P
2017) over what some issuers issued and revoked, and stashes of what they
revoked since (as Mozilla ships CRLite: full filters plus stashes).

  build --issuer CA.pem [--issuer ...] --issued DIR|FILE [--issued ...]
        [--revoked CRL|LIST ...] --out FILE [--sequence N] [--now UNIX]
        [--coverage UNIX] [--salt HEX] [--stats]
      The filter of the issuers' certificates: R = every serial on their CRLs
      (each CRL verified against its --issuer) or key lists, S = every issued
      certificate (PEM/DER files, directories of them, or key lists) that is
      unexpired at --now and not in R. A certificate of an issuer that is not
      an --issuer is an error. Coverage: certificates with notBefore up to
      --coverage [the latest notBefore of the issued certificates, at most
      --now; --now without any]. --sequence: the filter's version [1].
  stash --filter BASE --issuer CA.pem ... --revoked CRL|LIST ... --number N
        --out FILE [--now UNIX]
      The revocations since BASE: every revoked serial of an issuer BASE
      covers that BASE does not already say is revoked, as stash N of BASE.
  check --filter FILE [--stash FILE ...] [--issuer ISSUER.pem] CERT.pem
      What a client would conclude: CERT.pem's first certificate, issued by
      --issuer or by the next certificate in CERT.pem.
  info FILE
      What a filter or stash file holds, one "key: value" a line.

Key lists: one "ISSUER_SPKI_SHA256_HEX SERIAL_HEX [NOT_BEFORE NOT_AFTER]" a
line (Unix seconds; '#' starts a comment).

Exit codes: 0 ok (check: good), 1 error, 2 bad usage, 3 check: revoked,
4 check: not covered.
)";

struct Flags {
  std::string command;
  std::vector<std::string> issuers, issued, revoked, stashes, positional;
  std::string out, filter, salt;
  std::optional<uint64_t> sequence, number;
  std::optional<int64_t> now, coverage;
  bool stats = false;
};

std::string Hex(absl::string_view bytes) {
  return absl::BytesToHexString(bytes);
}

std::string Iso(absl::Time t) {
  return absl::StrCat(
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone()), " (",
      absl::ToUnixSeconds(t), ")");
}

absl::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags f;
  if (args.empty()) return absl::InvalidArgumentError("no command");
  f.command = args[0];
  for (size_t i = 1; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> inline_value;
    if (absl::StartsWith(flag, "--") && flag.find('=') != std::string::npos) {
      inline_value = flag.substr(flag.find('=') + 1);
      flag = flag.substr(0, flag.find('='));
    }
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
      return args[++i];
    };
    auto number = [&](auto* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      typename std::remove_reference_t<decltype(*out)>::value_type n;
      if (!absl::SimpleAtoi(*v, &n))
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": not a number: ", *v));
      *out = n;
      return absl::OkStatus();
    };
    absl::Status status;
    if (flag == "--issuer" || flag == "--issued" || flag == "--revoked" ||
        flag == "--stash" || flag == "--out" || flag == "--filter" ||
        flag == "--salt") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (flag == "--issuer") f.issuers.push_back(*v);
      if (flag == "--issued") f.issued.push_back(*v);
      if (flag == "--revoked") f.revoked.push_back(*v);
      if (flag == "--stash") f.stashes.push_back(*v);
      if (flag == "--out") f.out = *v;
      if (flag == "--filter") f.filter = *v;
      if (flag == "--salt") f.salt = *v;
    } else if (flag == "--sequence") {
      status = number(&f.sequence);
    } else if (flag == "--number") {
      status = number(&f.number);
    } else if (flag == "--now") {
      status = number(&f.now);
    } else if (flag == "--coverage") {
      status = number(&f.coverage);
    } else if (flag == "--stats") {
      f.stats = true;
    } else if (absl::StartsWith(flag, "-") && flag != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", flag));
    } else {
      f.positional.push_back(flag);
    }
    if (!status.ok()) return status;
  }
  return f;
}

class Tool {
 public:
  Tool(std::FILE* out, std::FILE* err) : out_(out), err_(err) {}

  int Run(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
        args[0] == "help") {
      std::fputs(kUsage, args.empty() ? err_ : out_);
      return args.empty() ? kRevocationFilterExitUsage
                          : kRevocationFilterExitOk;
    }
    absl::StatusOr<Flags> flags = ParseFlags(args);
    if (!flags.ok()) return Usage(flags.status().message());
    f_ = *std::move(flags);
    if (f_.command == "build") return Report(Build());
    if (f_.command == "stash") return Report(Stash());
    if (f_.command == "info") return Report(Info());
    if (f_.command == "check") return Check();
    return Usage(absl::StrCat("unknown command ", f_.command));
  }

 private:
  int Usage(absl::string_view why) {
    std::fprintf(err_, "revocation_filter: %.*s (--help for usage)\n",
                 static_cast<int>(why.size()), why.data());
    return kRevocationFilterExitUsage;
  }
  int Report(const absl::Status& status) {
    if (status.ok()) return kRevocationFilterExitOk;
    if (absl::IsInvalidArgument(status) && usage_error_)
      return Usage(status.message());
    std::fprintf(err_, "revocation_filter: %s\n",
                 std::string(status.message()).c_str());
    return kRevocationFilterExitError;
  }
  absl::Status UsageError(absl::string_view why) {
    usage_error_ = true;
    return absl::InvalidArgumentError(why);
  }
  absl::Time Now() const {
    return f_.now ? absl::FromUnixSeconds(*f_.now) : absl::Now();
  }

  absl::Status Build() {
    if (f_.issuers.empty() || f_.out.empty() ||
        (f_.issued.empty() && f_.revoked.empty()) || !f_.positional.empty())
      return UsageError(
          "build needs --issuer, --issued or --revoked, and --out");
    absl::StatusOr<std::vector<IssuerCert>> issuers = LoadIssuers(f_.issuers);
    if (!issuers.ok()) return issuers.status();
    std::vector<IssuedEntry> issued;
    for (const std::string& path : f_.issued) {
      absl::Status status = ReadIssued(path, *issuers, &issued);
      if (!status.ok()) return status;
    }
    std::vector<RevocationFilterKey> revoked_all;
    for (const std::string& path : f_.revoked) {
      absl::Status status = ReadRevoked(path, *issuers, &revoked_all);
      if (!status.ok()) return status;
    }
    const absl::Time now = Now();
    // Expired certificates need no answer (the verifier refuses them
    // first): neither in S nor in R, as CRLite leaves them out.
    absl::flat_hash_set<RevocationFilterKey> expired;
    std::optional<absl::Time> latest_not_before;
    for (const IssuedEntry& e : issued) {
      if (e.not_after && *e.not_after < now) {
        expired.insert(e.key);
        continue;
      }
      if (e.not_before &&
          (!latest_not_before || *e.not_before > *latest_not_before))
        latest_not_before = e.not_before;
    }
    absl::flat_hash_set<RevocationFilterKey> revoked_set;
    std::vector<RevocationFilterKey> revoked, valid;
    for (const RevocationFilterKey& key : revoked_all) {
      if (expired.contains(key) || !revoked_set.insert(key).second) continue;
      revoked.push_back(key);
    }
    for (const IssuedEntry& e : issued) {
      if (!expired.contains(e.key) && !revoked_set.contains(e.key))
        valid.push_back(e.key);
    }
    RevocationFilterBuildOptions options;
    options.sequence = f_.sequence.value_or(1);
    options.created = now;
    options.coverage = f_.coverage
                           ? absl::FromUnixSeconds(*f_.coverage)
                           : std::min(now, latest_not_before.value_or(now));
    for (const IssuerCert& issuer : *issuers)
      options.issuers.push_back({issuer.spki_sha256, issuer.label});
    if (!f_.salt.empty()) {
      if (f_.salt.size() % 2 != 0 ||
          f_.salt.find_first_not_of("0123456789abcdefABCDEF") !=
              std::string::npos)
        return UsageError("--salt wants hex");
      options.salt = absl::HexStringToBytes(f_.salt);
    }
    RevocationFilterBuildStats stats;
    absl::StatusOr<RevocationFilter> filter =
        BuildRevocationFilter(revoked, valid, options, &stats);
    if (!filter.ok()) return filter.status();
    const std::string bytes = filter->Serialize();
    absl::Status written = WriteFileAtomically(f_.out, bytes);
    if (!written.ok()) return written;
    std::fprintf(
        out_,
        "revocation_filter: wrote %s: filter %llu of %zu issuers, %zu revoked "
        "and %zu valid certificates (%zu expired left out), %zu levels%s, %zu "
        "bytes (%.2f per revoked)\n",
        f_.out.c_str(), static_cast<unsigned long long>(filter->sequence()),
        issuers->size(), stats.revoked, stats.valid, expired.size(),
        filter->levels().size(), stats.inverted ? " (inverted)" : "",
        bytes.size(),
        stats.revoked ? static_cast<double>(bytes.size()) / stats.revoked
                      : 0.0);
    if (f_.stats) {
      for (size_t i = 0; i < stats.levels.size(); ++i) {
        const auto& l = stats.levels[i];
        std::fprintf(out_,
                     "level %zu: elements=%zu tested=%zu false_positives=%zu "
                     "fp_rate=%.6g k=%u bits=%u\n",
                     i + 1, l.elements, l.tested, l.false_positives, l.fp_rate,
                     l.hash_count, l.bit_count);
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<RevocationFilter> LoadFilter(const std::string& path) {
    absl::StatusOr<std::string> bytes =
        ReadFileToString(path, RevocationFilter::kDefaultMaxBytes);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<RevocationFilter> filter = RevocationFilter::Parse(*bytes);
    if (!filter.ok())
      return absl::Status(filter.status().code(),
                          absl::StrCat(path, ": ", filter.status().message()));
    return filter;
  }

  absl::Status Stash() {
    if (f_.filter.empty() || f_.issuers.empty() || f_.revoked.empty() ||
        !f_.number || f_.out.empty() || !f_.positional.empty())
      return UsageError(
          "stash needs --filter, --issuer, --revoked, --number and --out");
    absl::StatusOr<RevocationFilter> base = LoadFilter(f_.filter);
    if (!base.ok()) return base.status();
    absl::StatusOr<std::vector<IssuerCert>> issuers = LoadIssuers(f_.issuers);
    if (!issuers.ok()) return issuers.status();
    std::vector<RevocationFilterKey> revoked_all;
    for (const std::string& path : f_.revoked) {
      absl::Status status = ReadRevoked(path, *issuers, &revoked_all);
      if (!status.ok()) return status;
    }
    // What the base already says is revoked it said exactly (it was in R);
    // a key it says is revoked but was not built from was issued after its
    // coverage, and a client asks OCSP about it anyway.
    std::vector<RevocationFilterKey> fresh;
    size_t known = 0, uncovered = 0;
    for (const RevocationFilterKey& key : revoked_all) {
      if (!base->CoversIssuer(key.issuer_spki_sha256)) {
        ++uncovered;
      } else if (base->CascadeSaysRevoked(key)) {
        ++known;
      } else {
        fresh.push_back(key);
      }
    }
    if (*f_.number == 0 || *f_.number > 0xffffffffu)
      return UsageError("--number counts from 1");
    absl::StatusOr<RevocationStash> stash = RevocationStash::Create(
        {base->sequence(), static_cast<uint32_t>(*f_.number), Now(), fresh});
    if (!stash.ok()) return stash.status();
    const std::string bytes = stash->Serialize();
    absl::Status written = WriteFileAtomically(f_.out, bytes);
    if (!written.ok()) return written;
    std::fprintf(out_,
                 "revocation_filter: wrote %s: stash %u of filter %llu, %zu "
                 "new revocations (%zu already in the filter, %zu of issuers "
                 "it does not cover left out), %zu bytes\n",
                 f_.out.c_str(), stash->number(),
                 static_cast<unsigned long long>(base->sequence()),
                 stash->size(), known, uncovered, bytes.size());
    return absl::OkStatus();
  }

  absl::Status Info() {
    if (f_.positional.size() != 1) return UsageError("info takes one FILE");
    const std::string& path = f_.positional[0];
    absl::StatusOr<std::string> bytes =
        ReadFileToString(path, RevocationFilter::kDefaultMaxBytes);
    if (!bytes.ok()) return bytes.status();
    if (absl::StartsWith(*bytes, RevocationStash::kMagic)) {
      absl::StatusOr<std::vector<RevocationStash>> stashes =
          RevocationStash::ParseAll(*bytes, RevocationFilter::kDefaultMaxBytes);
      if (!stashes.ok())
        return absl::DataLossError(
            absl::StrCat(path, ": ", stashes.status().message()));
      for (const RevocationStash& s : *stashes) {
        std::fprintf(out_,
                     "kind: stash\nformat_version: %u\nbase_sequence: %llu\n"
                     "number: %u\ncreated: %s\nrevoked: %zu\n",
                     RevocationStash::kFormatVersion,
                     static_cast<unsigned long long>(s.base_sequence()),
                     s.number(), Iso(s.contents().created).c_str(), s.size());
        for (const RevocationFilterKey& key : s.contents().revoked)
          std::fprintf(out_, "revoked_entry: %s\n", key.ToString().c_str());
        std::fprintf(out_, "bytes: %zu\n", s.Serialize().size());
      }
      return absl::OkStatus();
    }
    absl::StatusOr<RevocationFilter> filter = RevocationFilter::Parse(*bytes);
    if (!filter.ok())
      return absl::DataLossError(
          absl::StrCat(path, ": ", filter.status().message()));
    const auto& c = filter->contents();
    std::fprintf(out_,
                 "kind: filter\nformat_version: %u\nsequence: %llu\n"
                 "created: %s\ncoverage: %s\nhash: sha256\nsalt: %s\n"
                 "inverted: %s\nissuers: %zu\n",
                 RevocationFilter::kFormatVersion,
                 static_cast<unsigned long long>(c.sequence),
                 Iso(c.created).c_str(), Iso(c.coverage).c_str(),
                 Hex(c.salt).c_str(), c.inverted ? "yes" : "no",
                 c.issuers.size());
    for (const auto& issuer : c.issuers) {
      std::fprintf(out_, "issuer: %s %s\n", Hex(issuer.spki_sha256).c_str(),
                   issuer.label.c_str());
    }
    std::fprintf(out_, "levels: %zu\n", c.levels.size());
    for (size_t i = 0; i < c.levels.size(); ++i) {
      const auto& l = c.levels[i];
      size_t ones = 0;
      for (char byte : l.bits)
        ones += __builtin_popcount(static_cast<uint8_t>(byte));
      std::fprintf(out_, "level %zu: k=%u bits=%u bytes=%zu ones=%zu\n", i + 1,
                   l.hash_count, l.bit_count, l.bits.size(), ones);
    }
    std::fprintf(out_, "bytes: %zu\n", bytes->size());
    return absl::OkStatus();
  }

  int Check() {
    if (f_.filter.empty() || f_.positional.size() != 1)
      return Usage("check needs --filter and one CERT.pem");
    RevocationFilterStore store;
    absl::Status status = store.InstallFilterFile(f_.filter);
    for (const std::string& stash : f_.stashes) {
      if (status.ok()) status = store.InstallStashFile(stash);
    }
    if (!status.ok()) return Report(status);
    absl::StatusOr<std::vector<std::string>> certs =
        LoadPemCertificatesFromFile(f_.positional[0]);
    if (!certs.ok()) return Report(certs.status());
    std::string issuer;
    if (!f_.issuers.empty()) {
      absl::StatusOr<std::vector<std::string>> i =
          LoadPemCertificatesFromFile(f_.issuers[0]);
      if (!i.ok()) return Report(i.status());
      issuer = (*i)[0];
    } else if (certs->size() >= 2) {
      issuer = (*certs)[1];
    } else {
      return Usage("CERT.pem holds one certificate: give --issuer");
    }
    // The file's own answer, as of its last update: the tool inspects a
    // filter; the client's staleness rule (RevocationFilterStore::kMaxAge)
    // applies when the checker asks.
    RevocationFilterStore::Result result =
        store.Check((*certs)[0], issuer, store.last_update());
    std::fprintf(out_, "answer: %s\ndetail: %s\n",
                 RevocationFilter::AnswerToString(result.answer),
                 result.detail.c_str());
    switch (result.answer) {
      case RevocationFilter::Answer::kGood:
        return kRevocationFilterExitOk;
      case RevocationFilter::Answer::kRevoked:
        return kRevocationFilterExitRevoked;
      case RevocationFilter::Answer::kNotCovered:
        return kRevocationFilterExitNotCovered;
    }
    return kRevocationFilterExitError;
  }

  std::FILE* const out_;
  std::FILE* const err_;
  Flags f_;
  bool usage_error_ = false;
};

}  // namespace

int RunRevocationFilterTool(const std::vector<std::string>& args,
                            std::FILE* out, std::FILE* err) {
  return Tool(out, err).Run(args);
}

}  // namespace net
