// TransportConnectJob: resolve a host, then connect a transport socket to its
// addresses in turn (the next one after a failed attempt) through a
// ClientSocketFactory (Chromium's TransportConnectJob, without the pool).
// What probes need before they speak their own protocol on a connection, and
// the first half of every SSLConnectJob.
//
// Owned by its user; destroying it cancels the lookup or the connect. The
// resolver and factory (and the clock of Options) are not owned and must
// outlive it; the resolver may be null when Options::resolved is given.
// Network-thread affine.

#ifndef NET_SOCKET_TRANSPORT_CONNECT_JOB_H_
#define NET_SOCKET_TRANSPORT_CONNECT_JOB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_job.h"
#include "net/socket/connect_to.h"
#include "net/socket/stream_socket.h"

namespace net {

class TransportConnectJob : public ConnectJob {
 public:
  // OnHostResolved runs once the lookup answered with addresses, before any
  // connection is made (SPDY's IP pooling looks for an open session to one
  // of them here). It returns OK to go on connecting; ERR_IO_PENDING to
  // make the job wait until the owner calls ResumeAfterHostResolved() (or
  // destroys the job); any other value ends the job with that result and no
  // connection (the owner found another way, or gave up).
  using OnHostResolvedCallback =
      absl::AnyInvocable<int(const HostResolveResult&)>;

  struct Options {
    // The clock of the ConnectTiming stamps.
    const TickClock* clock = DefaultTickClock::GetInstance();
    // Addresses already resolved (a retry on a new connection after a
    // lookup that already ran): no lookup, no hook; the first attempt goes
    // to addresses[first_address].
    std::optional<HostResolveResult> resolved;
    size_t first_address = 0;
    OnHostResolvedCallback on_host_resolved;
    // How each TCP attempt connects (TCP Fast Open).
    TcpConnectOptions tcp;
    // curl's --connect-to: the job resolves and connects to the rules'
    // destination for host:port instead (not owned; null: none).
    const ConnectToRules* connect_to = nullptr;
    // An https origin's connection: resolve with its HTTPS record
    // (HostResolver::ResolveHttps) and connect to the port a record that
    // applies names (its addresses come from the resolver). Not when a
    // connect-to rule redirected the job: the user's rule wins. With
    // |resolved| (a retry), the port of the record it carries. When every
    // address of the record's endpoint fails, the job tries the RRSet's
    // other compatible records' endpoints by priority, then the origin's
    // own addresses and port (RFC 9460 3; the trace's record then
    // "ignored", saying why), but not with |ech| and ECH in every record
    // (SVCB-reliant: the name would go in the clear). A retry's job (with
    // |resolved|) does neither: it did no lookup of its own.
    bool https_record = false;
    // Whether the connection offers a record's ECH configuration
    // (SSLConfig::ech_mode on or hard).
    bool ech = true;
  };

  TransportConnectJob(HostResolver* resolver, ClientSocketFactory* factory,
                      std::string host, uint16_t port,
                      absl::Duration connect_timeout);
  TransportConnectJob(HostResolver* resolver, ClientSocketFactory* factory,
                      std::string host, uint16_t port,
                      absl::Duration connect_timeout, Options options);
  ~TransportConnectJob() override;
  TransportConnectJob(const TransportConnectJob&) = delete;
  TransportConnectJob& operator=(const TransportConnectJob&) = delete;

  // ConnectJob:
  int Connect(CompletionOnceCallback callback) override;
  void ResumeAfterHostResolved() override;
  std::unique_ptr<StreamSocket> TakeSocket() override {
    return std::move(socket_);
  }
  Phase phase() const override { return phase_; }
  ConnectTiming timing() const override { return timing_; }
  const HostResolveResult& resolve_result() const override { return resolved_; }
  size_t address_index() const override { return address_index_; }
  // The port connected to: the job's, or the HTTPS record's.
  uint16_t connect_port() const;
  // "resolving HOST: ..." or "connecting to HOST:PORT: ERR_..." (the last
  // address's error), with " (connect-to for HOST:PORT)" when a rule
  // redirected the job.
  const std::string& error_detail() const override { return error_detail_; }
  const SSLInfo* ssl_info() const override { return nullptr; }

 private:
  enum State {
    STATE_NONE,
    STATE_RESOLVE_HOST,
    STATE_RESOLVE_HOST_COMPLETE,
    STATE_HOST_RESOLVED,
    STATE_CONNECT,
    STATE_CONNECT_COMPLETE,
  };

  int DoLoop(int result);
  int DoResolveHost();
  int DoResolveHostComplete(int result);
  int DoHostResolved();
  int DoConnect();
  int DoConnectComplete(int result);
  void OnIOComplete(int result);
  // Every address of the current endpoint failed with |result| (a connect
  // failure, or the lookup of a fallback's target): moves on to the HTTPS
  // record's next endpoint, else to the origin's own (see
  // Options::https_record), setting next_state_; false if there is none.
  bool TryNextEndpoint(int result, bool connect_failure);
  // The name whose addresses the job connects to: another record's target
  // after the first endpoint failed (the trace's record is the current
  // endpoint), else host_.
  const std::string& target_host() const {
    return fallback_ == Fallback::kNextRecord ? timing_.dns_https.target
                                              : host_;
  }

  HostResolver* const resolver_;
  ClientSocketFactory* const factory_;
  // Where the job connects: the request's host:port, or a connect-to
  // rule's destination for it; |via_| names the rule's origin in errors.
  std::string host_;
  uint16_t port_;
  std::string via_;
  const absl::Duration connect_timeout_;
  Options options_;
  State next_state_ = STATE_NONE;
  Phase phase_ = Phase::kNone;
  ConnectTiming timing_;
  HostResolveResult resolved_;
  bool resolved_synchronously_ = false;
  // After the HTTPS record's endpoint failed: connecting to another of its
  // records' endpoints, or to the origin's own (resolved without it).
  enum class Fallback { kNone, kNextRecord, kOrigin };
  Fallback fallback_ = Fallback::kNone;
  // The records' endpoints not tried yet, best first.
  std::vector<HttpsRecordInfo> next_endpoints_;
  // ECH on and every record of the RRSet with ECH: no origin fallback.
  bool svcb_reliant_ = false;
  // Whether this job resolved the host itself (not a retry's addresses).
  bool looked_up_ = false;
  // The endpoints' connect error, returned if a fallback's lookup fails.
  int connect_error_ = OK;
  // The endpoints that failed, for the trace ("HOST:PORT: ERR_..."), and
  // the resolver's notes on the record.
  std::string endpoint_failures_;
  std::string record_notes_;
  // The name whose own addresses are at hand ("" for a record's address
  // hints): another record with that target reuses them.
  std::string addresses_of_;
  std::unique_ptr<HostResolver::Request> resolve_request_;
  size_t address_index_ = 0;
  std::unique_ptr<StreamSocket> socket_;
  CompletionOnceCallback callback_;
  std::string error_detail_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<TransportConnectJob> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SOCKET_TRANSPORT_CONNECT_JOB_H_
