// Network error codes and the async completion contract.
//
// Every I/O method in this library returns an int: >= 0 is synchronous
// success (a byte count or OK), a negative value is a synchronous error
// from net_error_list.h, and ERR_IO_PENDING means the operation continues
// and its CompletionOnceCallback runs exactly once later, from the event
// loop, never re-entrantly from inside the call that returned
// ERR_IO_PENDING, and never after the object that took it is destroyed.

#ifndef NET_BASE_NET_ERRORS_H_
#define NET_BASE_NET_ERRORS_H_

#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"

namespace net {

enum Error {
  OK = 0,
#define NET_ERROR(label, value) ERR_##label = value,
#include "net/base/net_error_list.h"
#undef NET_ERROR
};

// The callback of an async operation: receives a net error or a result >= 0.
using CompletionOnceCallback = absl::AnyInvocable<void(int)>;

// ErrorToString returns "net::ERR_NAME" for |error| ("net::OK" for OK).
std::string ErrorToString(int error);

// ErrorToShortString returns "ERR_NAME" for |error| ("OK" for OK).
std::string ErrorToShortString(int error);

// The area an error belongs to: the range its number lies in (the ranges
// are listed atop net_error_list.h).
enum class NetErrorArea {
  kOk,           // OK (or any value >= 0)
  kGeneric,      // -1 .. -99
  kConnection,   // -100 .. -199: connection and socket
  kCertificate,  // -200 .. -299: certificate and revocation
  kHttp,         // -300 .. -399: HTTP and URLs
  kDns,          // -400 .. -499
  kTls,          // -500 .. -599: TLS and cipher
  kSpdy,         // -600 .. -649 (SPDY/3 and HTTP/2)
  kPrefetch,     // -650 .. -699
  kSnapStart,    // -700 .. -749
  kObc,          // -750 .. -799: origin-bound certificates
  kQuic,         // -800 .. -849: QUIC (800-819) and HTTP/3 (820-849)
  kUnknown,      // beyond every range
};
NetErrorArea GetNetErrorArea(int error);
// NetErrorAreaToString: "ok", "generic", "connection", "certificate",
// "http", "dns", "tls", "spdy", "prefetch", "snap_start", "obc", "quic",
// "unknown".
const char* NetErrorAreaToString(NetErrorArea area);

// MapSystemError maps an errno value to a net error (OK for 0).
int MapSystemError(int os_error);

// MapConnectError is MapSystemError for connect(2), where a timeout means
// ERR_CONNECTION_TIMED_OUT rather than ERR_TIMED_OUT.
int MapConnectError(int os_error);

// NetErrorToStatus wraps a net error in an absl::Status with its name as
// message (OK -> OkStatus).
absl::Status NetErrorToStatus(int error, std::string detail = "");

}  // namespace net

#endif  // NET_BASE_NET_ERRORS_H_
