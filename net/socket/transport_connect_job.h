// TransportConnectJob: resolve a host, then connect a transport socket to its
// first address through a ClientSocketFactory — what probes and prefetch
// jobs need before they speak their own protocol on a connection (Chromium's
// TransportConnectJob, without the pool).
//
// Owned by its user; destroying it cancels the lookup or the connect. The
// resolver and factory are not owned and must outlive it. Network-thread
// affine.

#ifndef NET_SOCKET_TRANSPORT_CONNECT_JOB_H_
#define NET_SOCKET_TRANSPORT_CONNECT_JOB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/stream_socket.h"

namespace net {

class TransportConnectJob {
 public:
  TransportConnectJob(HostResolver* resolver, ClientSocketFactory* factory,
                      std::string host, uint16_t port,
                      absl::Duration connect_timeout);
  ~TransportConnectJob();
  TransportConnectJob(const TransportConnectJob&) = delete;
  TransportConnectJob& operator=(const TransportConnectJob&) = delete;

  // Connect returns OK, a net error, or ERR_IO_PENDING (then |callback|
  // runs once, later). Call once.
  int Connect(CompletionOnceCallback callback);

  // TakeSocket hands over the connected socket (after OK).
  std::unique_ptr<StreamSocket> TakeSocket() { return std::move(socket_); }
  // Which step failed, and why.
  const std::string& error_detail() const { return error_detail_; }

 private:
  int OnResolved(int rv);
  int Fail(int rv);
  void RunCallback(int rv);

  HostResolver* const resolver_;
  ClientSocketFactory* const factory_;
  const std::string host_;
  const uint16_t port_;
  const absl::Duration connect_timeout_;
  HostResolveResult resolved_;
  std::unique_ptr<HostResolver::Request> resolve_request_;
  std::unique_ptr<StreamSocket> socket_;
  CompletionOnceCallback callback_;
  std::string error_detail_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SOCKET_TRANSPORT_CONNECT_JOB_H_
