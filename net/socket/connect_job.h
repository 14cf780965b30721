// ConnectJob: the interface of the jobs that hand their owner a connected
// socket — TransportConnectJob (resolve, then TCP to each address in turn)
// and SSLConnectJob (//net/http:ssl_connect_job: that, then the TLS
// handshake). A caller that needs "a connection to host:port" holds a
// std::unique_ptr<ConnectJob> and does not care which one it got.
//
// A job is owned by its user; destroying it cancels whatever step runs, and
// no callback runs afterwards. Network-thread affine.

#ifndef NET_SOCKET_CONNECT_JOB_H_
#define NET_SOCKET_CONNECT_JOB_H_

#include <memory>
#include <string>

#include "dns/host_resolver.h"
#include "dns/https_record_info.h"
#include "net/base/net_errors.h"
#include "net/base/tick_clock.h"
#include "net/socket/stream_socket.h"

namespace net {

struct SSLInfo;          // net/ssl/ssl_info.h
struct HandshakeChoice;  // net/ssl/ssl_info.h

// ConnectTiming: what a job stamps, on its clock (null: did not happen).
// The owner copies it into its trace (LoadTiming's names).
struct ConnectTiming {
  // The lookup; null when the job was given its addresses.
  TimeTicks dns_start;
  // When the answer was at hand (dns_start itself for a synchronous answer:
  // a cached lookup costs nothing on the critical path, as W3C reports it).
  TimeTicks dns_end;
  // The resolver's source of the answer ("network", "cache", ...).
  DnsSource dns_source = DnsSource::kNone;
  // What the origin's HTTPS record said (status not queried unless the job
  // resolved with TransportConnectJob::Options::https_record).
  HttpsRecordInfo dns_https;
  // The first TCP attempt.
  TimeTicks connect_start;
  // The address of the latest TCP attempt ("ip:port").
  std::string remote_address;
  // The TLS handshake's start; null without one.
  TimeTicks ssl_start;
  // Connected (and handshaken, with TLS).
  TimeTicks connect_end;
};

class ConnectJob {
 public:
  // The step a job is at, or, after it failed, the step that failed.
  enum class Phase {
    kNone,
    kResolveHost,
    // The owner's OnHostResolved hook asked the job to wait.
    kHostResolved,
    kTransportConnect,
    // Through an HTTP proxy: the CONNECT request and the proxy's reply.
    kProxyTunnel,
    kSSLHandshake,
    kDone,
  };

  virtual ~ConnectJob() = default;

  // Connect returns OK, a net error, or ERR_IO_PENDING (then |callback| runs
  // once, later, never re-entrantly). Call once. On success TakeSocket()
  // hands over the socket.
  virtual int Connect(CompletionOnceCallback callback) = 0;
  // After the OnHostResolved hook returned ERR_IO_PENDING: runs the hook
  // again, and goes on as it says. The result arrives through Connect's
  // callback. Must not be called from inside the hook.
  virtual void ResumeAfterHostResolved() = 0;

  virtual std::unique_ptr<StreamSocket> TakeSocket() = 0;
  virtual Phase phase() const = 0;
  // What the job stamped so far (also while it runs, and from inside the
  // OnHostResolved hook).
  virtual ConnectTiming timing() const = 0;
  // The lookup's answer (or the addresses given); valid once the lookup ran.
  virtual const HostResolveResult& resolve_result() const = 0;
  // The index in resolve_result().addresses of the address connected to.
  virtual size_t address_index() const = 0;
  // Which step failed, and why ("" when the hook ended the job).
  virtual const std::string& error_detail() const = 0;
  // The TLS handshake's facts once it ended, also after it failed (a Snap
  // Start attempt's are final only once the server answered); null before,
  // and for a job without TLS.
  virtual const SSLInfo* ssl_info() const = 0;
  // Which TLS handshake the job chose and why (null for a job without TLS,
  // or before the handshake started).
  virtual const HandshakeChoice* handshake_choice() const { return nullptr; }
};

}  // namespace net

#endif  // NET_SOCKET_CONNECT_JOB_H_
