#include "net/socket/stream_socket.h"

namespace net {

const std::string& StreamSocket::error_detail() const {
  static const std::string* const kNone = new std::string();
  return *kNone;
}

}  // namespace net
