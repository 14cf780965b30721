#include "tools/fetch/messages.h"

#include <iostream>

namespace net {

int ReportError(const FetchOptions& options, absl::string_view message,
                int exit_code) {
  if (!options.silent || options.show_error)
    std::cerr << "fetch: " << message << "\n";
  return exit_code;
}

void ReportWarning(const FetchOptions& options, absl::string_view message) {
  if (!options.silent) std::cerr << "Warning: " << message << "\n";
}

}  // namespace net
