#include "net/base/net_errors.h"

#include <errno.h>

#include "absl/strings/str_cat.h"

namespace net {

std::string ErrorToShortString(int error) {
  if (error == OK) return "OK";
  switch (error) {
#define NET_ERROR(label, value) \
  case ERR_##label:             \
    return "ERR_" #label;
#include "net/base/net_error_list.h"
#undef NET_ERROR
  }
  return absl::StrCat("<unknown net error ", error, ">");
}

std::string ErrorToString(int error) {
  return "net::" + ErrorToShortString(error);
}

NetErrorArea GetNetErrorArea(int error) {
  if (error >= 0) return NetErrorArea::kOk;
  const int n = -error;
  if (n < 100) return NetErrorArea::kGeneric;
  if (n < 200) return NetErrorArea::kConnection;
  if (n < 300) return NetErrorArea::kCertificate;
  if (n < 400) return NetErrorArea::kHttp;
  if (n < 500) return NetErrorArea::kDns;
  if (n < 600) return NetErrorArea::kTls;
  if (n < 650) return NetErrorArea::kSpdy;
  if (n < 700) return NetErrorArea::kPrefetch;
  if (n < 750) return NetErrorArea::kSnapStart;
  if (n < 800) return NetErrorArea::kObc;
  if (n < 850) return NetErrorArea::kQuic;
  return NetErrorArea::kUnknown;
}

const char* NetErrorAreaToString(NetErrorArea area) {
  switch (area) {
    case NetErrorArea::kOk:
      return "ok";
    case NetErrorArea::kGeneric:
      return "generic";
    case NetErrorArea::kConnection:
      return "connection";
    case NetErrorArea::kCertificate:
      return "certificate";
    case NetErrorArea::kHttp:
      return "http";
    case NetErrorArea::kDns:
      return "dns";
    case NetErrorArea::kTls:
      return "tls";
    case NetErrorArea::kSpdy:
      return "spdy";
    case NetErrorArea::kPrefetch:
      return "prefetch";
    case NetErrorArea::kSnapStart:
      return "snap_start";
    case NetErrorArea::kObc:
      return "obc";
    case NetErrorArea::kQuic:
      return "quic";
    case NetErrorArea::kUnknown:
      break;
  }
  return "unknown";
}

int MapSystemError(int os_error) {
  switch (os_error) {
    case 0:
      return OK;
    case EAGAIN:
    case EINPROGRESS:
      return ERR_IO_PENDING;
    case EACCES:
    case EPERM:
      return ERR_ACCESS_DENIED;
    case EADDRINUSE:
      return ERR_ADDRESS_IN_USE;
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT:
      return ERR_ADDRESS_INVALID;
    case EBADF:
      return ERR_INVALID_HANDLE;
    case ECONNABORTED:
      return ERR_CONNECTION_ABORTED;
    case ECONNREFUSED:
      return ERR_CONNECTION_REFUSED;
    case ECONNRESET:
    case EPIPE:
      return ERR_CONNECTION_RESET;
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EHOSTDOWN:
      return ERR_ADDRESS_UNREACHABLE;
    case EINVAL:
      return ERR_INVALID_ARGUMENT;
    case EISCONN:
      return ERR_SOCKET_IS_CONNECTED;
    case ENOTCONN:
      return ERR_SOCKET_NOT_CONNECTED;
    case ENETDOWN:
      return ERR_INTERNET_DISCONNECTED;
    case ETIMEDOUT:
      return ERR_TIMED_OUT;
    case ENOMEM:
      return ERR_OUT_OF_MEMORY;
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
      return ERR_INSUFFICIENT_RESOURCES;
    case ENOENT:
      return ERR_FILE_NOT_FOUND;
    default:
      return ERR_FAILED;
  }
}

int MapConnectError(int os_error) {
  if (os_error == ETIMEDOUT) return ERR_CONNECTION_TIMED_OUT;
  int net_error = MapSystemError(os_error);
  return net_error == ERR_FAILED ? ERR_CONNECTION_FAILED : net_error;
}

absl::Status NetErrorToStatus(int error, std::string detail) {
  if (error == OK) return absl::OkStatus();
  std::string message = ErrorToShortString(error);
  if (!detail.empty()) absl::StrAppend(&message, ": ", detail);
  return absl::Status(absl::StatusCode::kUnavailable, message);
}

}  // namespace net
