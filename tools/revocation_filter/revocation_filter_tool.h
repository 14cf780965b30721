// RunRevocationFilterTool is the whole `revocation_filter` command, kept in a
// library so that main() stays a line long: an aggregator's tool that builds
// CRLite revocation filters (cert/revocation_filter_builder.h) from what
// issuers issued and revoked, makes stashes of the revocations since a
// filter, asks a filter about a certificate, and prints what a filter or
// stash file holds. See tools/revocation_filter/README.md and `--help`.

#ifndef TOOLS_REVOCATION_FILTER_REVOCATION_FILTER_TOOL_H_
#define TOOLS_REVOCATION_FILTER_REVOCATION_FILTER_TOOL_H_

#include <cstdio>
#include <string>
#include <vector>

namespace net {

// Exit codes (also in --help). check answers with kGood / kRevoked /
// kNotCovered.
inline constexpr int kRevocationFilterExitOk = 0;  // also: check says good
inline constexpr int kRevocationFilterExitError = 1;
inline constexpr int kRevocationFilterExitUsage = 2;
inline constexpr int kRevocationFilterExitRevoked = 3;
inline constexpr int kRevocationFilterExitNotCovered = 4;

// RunRevocationFilterTool runs `revocation_filter ARGS...` (|args| without
// the program name), writing to |out| and |err| (not closed). Returns the
// exit code.
int RunRevocationFilterTool(const std::vector<std::string>& args,
                            std::FILE* out, std::FILE* err);

}  // namespace net

#endif  // TOOLS_REVOCATION_FILTER_REVOCATION_FILTER_TOOL_H_
