// Fuzzes the structured-field parser and the DBSC header parsers built on
// it with arbitrary bytes: no crash, the member bound holds, and every
// string a parse returns can be serialized again (printable ASCII only).

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "net/device_bound_sessions/session_config.h"
#include "net/device_bound_sessions/structured_headers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<net::SfListMember>> list = net::ParseSfList(input);
  if (list.ok()) {
    size_t count = 0;
    for (const net::SfListMember& m : *list) {
      count += 1 + m.inner.size() + m.params.size() + m.item.params.size();
      for (const net::SfItem& item : m.inner) count += item.params.size();
      if (m.item.bare.is_string() &&
          !net::SerializeSfString(m.item.bare.string).ok())
        abort();
    }
    if (count > 3 * net::kMaxSfMembers) abort();
  }
  absl::StatusOr<net::SfItem> item = net::ParseSfItem(input);
  if (item.ok() && item->bare.is_string()) {
    absl::StatusOr<std::string> again =
        net::SerializeSfString(item->bare.string);
    if (!again.ok() ||
        net::ParseSfItem(*again)->bare.string != item->bare.string)
      abort();
  }
  absl::StatusOr<std::vector<net::RegistrationParams>> regs =
      net::ParseRegistrationHeader(input);
  if (regs.ok() && regs->size() > net::kMaxRegistrationsPerResponse) abort();
  absl::StatusOr<std::vector<net::ChallengeParams>> challenges =
      net::ParseChallengeHeader(input);
  if (challenges.ok()) {
    for (const net::ChallengeParams& c : *challenges) {
      if (c.session_id.size() > net::kMaxSessionIdBytes) abort();
    }
  }
  return 0;
}
