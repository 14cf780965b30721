// CaresHostResolver: DNS over c-ares, driven by the network thread's
// EventLoop — c-ares tells us which sockets to watch (socket-state
// callback -> FdWatchController), we call ares_process_fd when one is
// ready, and one OneShotTimer is re-armed from ares_timeout() after every
// call. No polling thread, no fixed poll interval.
//
// A and AAAA for Resolve/Prefetch, TXT for ResolveTxt (EDNS0 with a large
// buffer; c-ares retries over TCP when an answer is truncated). Answers go
// through HostCache (TTLs, negative caching per the SOA minimum). Requests
// for a name already being looked up join that lookup (one query). Results
// are always delivered from a posted task, never inside the caller's call.
// Destroying a Request cancels it.
//
// HTTPS records (RFC 9460), with query_https: ResolveHttps and Prefetch
// (which then completes once both are in, alias chain and target included,
// without the extra-wait bound below: it is off the critical path, and the
// request it prepares finds everything cached) send the HTTPS query (type 65,
// raw answer through ares_query: c-ares 1.18 has no parser for it) beside A and
// AAAA, for the host on port 443 and "_PORT._https.HOST" on others (a
// ServiceMode "." there names HOST: the Attrleaf name holds no addresses).
// The RDATA is parsed here (https_record.h);
// AliasMode is followed, at most max_https_aliases hops, loops refused; the
// outcome is cached by its TTL like any answer (HostCache::Kind::kHttps).
// The request completes when both are in, with these bounds, so the HTTPS
// query never costs the critical path more than a little:
//   - A/AAAA in first: wait for the HTTPS answer at most an extra
//     clamp(https_extra_wait_percent of the A/AAAA time, min, max), then go
//     without it (status not_in_time; the answer still fills the cache);
//   - A/AAAA from a prefetch, the record for this port not: no wait (the
//     prefetch took DNS off the critical path);
//   - HTTPS in first, with a compatible record that carries address hints:
//     complete at once on the hints (RFC 9460 7.3); the A/AAAA answer, when
//     it comes, fills the cache and serves every later connection;
//   - a record whose TargetName is another name: that name's A/AAAA are
//     looked up (hints meanwhile); if that fails the origin's addresses are
//     used, unless the record carries ECH (RFC 9460 9.3: no fallback that
//     would reveal the name), when the lookup fails.
//
// Malformed answers are errors at once, not timeouts. c-ares drops a UDP
// answer whose question section it cannot match to a query (an answer cut
// short inside the question, say), so the query would wait for its timeout.
// The resolver does c-ares's socket I/O itself (ares_set_socket_functions)
// and looks at each UDP answer first: one that carries the ID of a query in
// flight, is not marked truncated (TC), does not parse, and does not name
// another question is handed to c-ares as a well-formed stand-in for that
// query (its question, RCODE 15, which c-ares passes through), and the
// lookup fails with ERR_DNS_MALFORMED_RESPONSE and the parse error. An answer
// that parses, or names another question, goes to c-ares unchanged.
//
// Owned by the network context; outlives every Request. Network thread only.

#ifndef DNS_CARES_HOST_RESOLVER_H_
#define DNS_CARES_HOST_RESOLVER_H_

#include <ares.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <deque>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "dns/dns_response.h"
#include "dns/host_cache.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"

namespace net {

struct CaresResolverConfig {
  // "addr:port" or "[v6]:port"; empty: the servers in /etc/resolv.conf.
  std::vector<std::string> servers;
  absl::Duration attempt_timeout = absl::Milliseconds(1000);
  int tries = 2;
  // EDNS0 with this UDP payload size; false: plain DNS (512-byte UDP, TCP
  // fallback on truncation).
  bool edns = true;
  int edns_payload = 4096;
  size_t cache_size = 1000;
  // HTTPS records (see the file comment). Off by default here; the network
  // context turns it on with NetworkContextParams::https_records (on by
  // default; fetch --no-https-rr turns it off).
  bool query_https = false;
  // The ALPN protocols this client speaks over TLS over TCP: a ServiceMode
  // record none of whose ALPN set is among them is incompatible (RFC 9460
  // 7.1.2). h3 belongs here only once an HTTP/3 client exists.
  std::vector<std::string> https_tls_alpns = {"h2", "http/1.1"};
  // AliasMode hops followed at most (RFC 9460 10.2: more than 8 is NOT
  // RECOMMENDED for zones).
  size_t max_https_aliases = 8;
  // The extra wait for the HTTPS answer once A/AAAA are in.
  absl::Duration https_extra_wait_min = absl::Milliseconds(5);
  absl::Duration https_extra_wait_max = absl::Milliseconds(50);
  int https_extra_wait_percent = 20;
  // Lookups in flight at once; more wait their turn, so a burst of names
  // does not flood the server (or the socket buffers) with queries.
  size_t max_concurrent_jobs = 64;
  absl::Duration max_negative_ttl = absl::Minutes(5);
  // Negative TTL when an NXDOMAIN carries no SOA.
  absl::Duration default_negative_ttl = absl::Seconds(60);
  const TickClock* clock = DefaultTickClock::GetInstance();
};

// MapCaresError maps a c-ares status to a net error (the one place).
int MapCaresError(int ares_status);

class CaresHostResolver : public HostResolver {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<CaresHostResolver>>
  Create(const CaresResolverConfig& config);
  ~CaresHostResolver() override;

  void AddOverride(const ResolveOverride& entry) { overrides_.Add(entry); }

  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out_request) override;
  int ResolveHttps(const std::string& host, uint16_t port,
                   HostResolveResult* result, CompletionOnceCallback callback,
                   std::unique_ptr<Request>* out_request) override;
  int Prefetch(const std::string& host, uint16_t port,
               HostResolveResult* result, CompletionOnceCallback callback,
               std::unique_ptr<Request>* out_request) override;
  int ResolveTxt(const std::string& name, std::vector<std::string>* records,
                 CompletionOnceCallback callback,
                 std::unique_ptr<Request>* out_request) override;

  HostCache* host_cache() { return &cache_; }
  // Counters for tests: DNS queries sent, lookups joined by a later request,
  // sockets and lookups open now.
  size_t queries_sent() const { return queries_sent_; }
  size_t https_queries_sent() const { return https_queries_sent_; }
  size_t coalesced_requests() const { return coalesced_; }
  size_t open_sockets() const { return sockets_.size(); }
  size_t active_jobs() const { return jobs_.size(); }

 private:
  class Job;
  class RequestImpl;
  class HttpsRequest;
  class SocketWatcher;
  struct QueryContext;
  friend class Job;
  friend class HttpsRequest;

  explicit CaresHostResolver(const CaresResolverConfig& config);
  int StartOrJoin(const std::string& name, HostCache::Kind kind, bool prefetch,
                  HostResolveResult* result, std::vector<std::string>* texts,
                  CompletionOnceCallback callback,
                  std::unique_ptr<Request>* out_request);
  void StartJob(Job* job);
  void StartQueuedJobs();
  void SendQuery(Job* job, int qtype);
  static void OnQueryComplete(void* arg, int status, int timeouts,
                              unsigned char* abuf, int alen);
  void OnQueryResult(const std::string& key, int qtype, int status,
                     const unsigned char* abuf, int alen);
  // An HTTPS answer for |job|: follows an alias (another query) or settles
  // the job's HttpsRecordInfo and finishes it.
  void OnHttpsAnswer(Job* job, const std::string& key, int status,
                     const absl::StatusOr<DnsResponse>& response);
  // ResolveHttps and, with |prefetch|, Prefetch: the addresses and the
  // HTTPS record together (HttpsRequest); port 0 (a prefetch whose port is
  // not known) asks for port 443's record.
  int ResolveHttpsImpl(const std::string& host, uint16_t port, bool prefetch,
                       HostResolveResult* result,
                       CompletionOnceCallback callback,
                       std::unique_ptr<Request>* out_request);
  void FinishJob(const std::string& key);

  static void SockStateCallback(void* data, ares_socket_t fd, int readable,
                                int writable);
  void ProcessFd(ares_socket_t read_fd, ares_socket_t write_fd);
  void ArmTimer();

  // c-ares's socket functions (ares_set_socket_functions); |data| is the
  // resolver.
  static ares_socket_t SocketOpen(int domain, int type, int protocol,
                                  void* data);
  static int SocketClose(ares_socket_t fd, void* data);
  static int SocketConnect(ares_socket_t fd, const sockaddr* address,
                           ares_socklen_t address_len, void* data);
  static ares_ssize_t SocketRecvFrom(ares_socket_t fd, void* buffer,
                                     size_t length, int flags, sockaddr* from,
                                     ares_socklen_t* from_len, void* data);
  static ares_ssize_t SocketSendv(ares_socket_t fd, const iovec* vector,
                                  int count, void* data);
  // A UDP datagram c-ares is about to read: replaces a malformed answer to a
  // query in flight by its stand-in (see the file comment). Returns the
  // length to hand c-ares.
  size_t CheckUdpAnswer(char* buffer, size_t length, size_t capacity);

  CaresResolverConfig config_;
  ares_channel channel_ = nullptr;
  bool destroying_ = false;
  HostCache cache_;
  ResolveOverrides overrides_;
  absl::flat_hash_map<ares_socket_t, std::unique_ptr<SocketWatcher>> sockets_;
  OneShotTimer timer_;
  absl::flat_hash_map<std::string, std::unique_ptr<Job>> jobs_;
  std::deque<std::string> queued_jobs_;
  size_t running_jobs_ = 0;
  size_t queries_sent_ = 0;
  size_t https_queries_sent_ = 0;
  size_t coalesced_ = 0;
  // The UDP sockets c-ares opened through SocketOpen.
  absl::flat_hash_set<ares_socket_t> udp_sockets_;
  // The question section (name, type, class) of each UDP query in flight,
  // by query ID.
  absl::flat_hash_map<uint16_t, std::string> udp_questions_;
  // Answers replaced by a stand-in, by query ID: why they were malformed.
  absl::flat_hash_map<uint16_t, std::string> malformed_answers_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // DNS_CARES_HOST_RESOLVER_H_
