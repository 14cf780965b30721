// HostResolver: the interface the HTTP transaction resolves names through,
// and SystemHostResolver, which calls getaddrinfo on the worker pool.
//
// Resolve follows the async contract (net/base/net_errors.h). Destroying the
// returned Request cancels it; its callback then never runs. Overrides
// ("--resolve host:port:addr") answer before any lookup, with source
// "override"; IP literals answer with source "literal".

#ifndef DNS_HOST_RESOLVER_H_
#define DNS_HOST_RESOLVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "dns/dns_source.h"
#include "dns/https_record_info.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/base/worker_pool.h"

namespace net {

struct HostResolveResult {
  std::vector<IPAddress> addresses;
  // Where the answer came from: network, cache, prefetch, override, literal.
  DnsSource source = DnsSource::kNone;
  // Human-readable reason on failure.
  std::string detail;
  // The host's HTTPS record (RFC 9460), from ResolveHttps: status
  // kNotQueried from Resolve, from resolvers that do not ask, and for
  // overrides and literals. When it is used and its target is another name,
  // |addresses| are the target's (or its hints').
  HttpsRecordInfo https;
};

// ResolveOverride is one curl-style "host:port:address" entry.
struct ResolveOverride {
  std::string host;
  uint16_t port = 0;
  IPAddress address;
  // ParseResolveOverride parses "host:port:addr" (addr may be [v6]).
  [[nodiscard]] static absl::StatusOr<ResolveOverride> Parse(
      absl::string_view text);
};

class HostResolver {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  virtual ~HostResolver() = default;
  // Resolve looks up |host| for a connection to |port|.
  virtual int Resolve(const std::string& host, uint16_t port,
                      HostResolveResult* result,
                      CompletionOnceCallback callback,
                      std::unique_ptr<Request>* out_request) = 0;
  // ResolveHttps is Resolve for a connection to an https origin on |port|:
  // a resolver that asks for HTTPS records (RFC 9460; CaresHostResolver
  // with query_https) queries the origin's HTTPS record in parallel with its
  // A/AAAA records and fills result->https; a record that applies may
  // change the addresses (its TargetName's, or its address hints while the
  // A/AAAA answer is still out). The default is Resolve.
  virtual int ResolveHttps(const std::string& host, uint16_t port,
                           HostResolveResult* result,
                           CompletionOnceCallback callback,
                           std::unique_ptr<Request>* out_request) {
    return Resolve(host, port, result, std::move(callback), out_request);
  }
  // Prefetch resolves |host| ahead of a connection to an https origin on
  // |port|, as ResolveHttps would (the HTTPS record asked is the port's:
  // _PORT._https.HOST unless |port| is 443), or, with |port| 0, for an
  // origin whose port is not known (443's HTTPS record; an override of any
  // port answers). A resolver with a cache tags the answer so the first
  // request that uses it reports source "prefetch".
  virtual int Prefetch(const std::string& host, uint16_t port,
                       HostResolveResult* result,
                       CompletionOnceCallback callback,
                       std::unique_ptr<Request>* out_request) {
    return Resolve(host, port, result, std::move(callback), out_request);
  }
  // ResolveTxt returns the TXT records of |name|, each record's strings
  // joined, records kept apart. Resolvers without DNS access return
  // ERR_NOT_IMPLEMENTED.
  virtual int ResolveTxt(const std::string& name,
                         std::vector<std::string>* records,
                         CompletionOnceCallback callback,
                         std::unique_ptr<Request>* out_request) {
    return ERR_NOT_IMPLEMENTED;
  }
};

// ResolveOverrides answers "--resolve" entries and IP literals locally, for
// every resolver.
class ResolveOverrides {
 public:
  // Add keeps the first entry for a host:port.
  void Add(const ResolveOverride& entry);
  // Lookup fills |result| and returns true if |host| needs no lookup. Port 0
  // (a prefetch, for any port) matches the host's first entry of any port.
  bool Lookup(const std::string& host, uint16_t port,
              HostResolveResult* result) const;

 private:
  absl::flat_hash_map<std::string, IPAddress> overrides_;  // "host:port"
  absl::flat_hash_map<std::string, IPAddress> any_port_;   // "host"
};

class SystemHostResolver : public HostResolver {
 public:
  // |pool| is not owned and must outlive the resolver.
  explicit SystemHostResolver(WorkerPool* pool);
  ~SystemHostResolver() override;

  // AddOverride: the first entry for a host:port wins.
  void AddOverride(const ResolveOverride& entry);

  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out_request) override;

 private:
  class RequestImpl;
  WorkerPool* const pool_;
  ResolveOverrides overrides_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // DNS_HOST_RESOLVER_H_
