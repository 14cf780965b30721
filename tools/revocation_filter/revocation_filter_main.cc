// revocation_filter: build CRLite revocation filters and stashes, check a
// certificate against one, print what a file holds. All logic is in
// revocation_filter_tool.cc; run `revocation_filter --help` for usage and
// exit codes.

#include <cstdio>
#include <string>
#include <vector>

#include "tools/revocation_filter/revocation_filter_tool.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return net::RunRevocationFilterTool(args, stdout, stderr);
}
