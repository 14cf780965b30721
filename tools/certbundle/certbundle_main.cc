// certbundle: make a certificate bundle for a server and print it in each
// carrier's form, or inspect one. All logic is in certbundle_tool.cc; run
// `certbundle --help` for usage and exit codes.

#include <cstdio>
#include <string>
#include <vector>

#include "tools/certbundle/certbundle_tool.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return net::RunCertbundle(args, stdin, stdout, stderr);
}
