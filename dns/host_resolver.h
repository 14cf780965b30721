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
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/base/weak_ptr.h"
#include "net/base/worker_pool.h"

namespace net {

struct HostResolveResult {
  std::vector<IPAddress> addresses;
  // Where the answer came from: network, cache, prefetch, override, literal.
  std::string source;
  // Human-readable reason on failure.
  std::string detail;
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
                      HostResolveResult* result, CompletionOnceCallback callback,
                      std::unique_ptr<Request>* out_request) = 0;
};

// ResolveOverride is one curl-style "host:port:address" entry.
struct ResolveOverride {
  std::string host;
  uint16_t port = 0;
  IPAddress address;
  // ParseResolveOverride parses "host:port:addr" (addr may be [v6]).
  [[nodiscard]] static absl::StatusOr<ResolveOverride> Parse(absl::string_view text);
};

class SystemHostResolver : public HostResolver {
 public:
  // |pool| is not owned and must outlive the resolver.
  explicit SystemHostResolver(WorkerPool* pool);
  ~SystemHostResolver() override;

  void AddOverride(const ResolveOverride& entry);

  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out_request) override;

 private:
  class RequestImpl;
  // Answers from overrides or literals; returns false if a lookup is needed.
  bool ResolveLocally(const std::string& host, uint16_t port,
                      HostResolveResult* result);

  WorkerPool* const pool_;
  absl::flat_hash_map<std::string, IPAddress> overrides_;  // "host:port"
};

}  // namespace net

#endif  // DNS_HOST_RESOLVER_H_
