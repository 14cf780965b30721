// Fuzzes what a DBSC server's bytes reach: the JSON session instructions
// and the proof verifier (a server's view of a client's bytes). Checks the
// bounds ParseSessionInstructions promises.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "net/device_bound_sessions/proof.h"
#include "net/device_bound_sessions/session_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::SessionInstructions> i =
      net::ParseSessionInstructions(input);
  if (i.ok() && i->continue_session) {
    if (i->session_identifier.empty() ||
        i->session_identifier.size() > net::kMaxSessionIdBytes ||
        i->credentials.size() > net::kMaxCredentials ||
        i->scope_rules.size() > net::kMaxScopeRules ||
        i->allowed_refresh_initiators.size() > net::kMaxRefreshInitiators)
      abort();
    for (const auto& c : i->credentials) {
      if (c.name.empty()) abort();
    }
    for (const auto& r : i->scope_rules) {
      if (r.path.empty() || r.path[0] != '/' || r.domain.empty()) abort();
    }
  }
  // Unsigned garbage never verifies.
  if (net::VerifyDbscProof(input, nullptr).ok()) abort();
  return 0;
}
