#include "dns/host_resolver.h"

#include <netdb.h>
#include <sys/socket.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {

absl::StatusOr<ResolveOverride> ResolveOverride::Parse(absl::string_view text) {
  size_t first = text.find(':');
  size_t second =
      first == absl::string_view::npos ? first : text.find(':', first + 1);
  if (second == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --resolve '", text, "': expected host:port:address"));
  }
  ResolveOverride entry;
  entry.host = absl::AsciiStrToLower(text.substr(0, first));
  uint32_t port;
  if (entry.host.empty() ||
      !absl::SimpleAtoi(text.substr(first + 1, second - first - 1), &port) ||
      port == 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --resolve '", text, "': bad host or port"));
  }
  entry.port = static_cast<uint16_t>(port);
  absl::string_view addr = text.substr(second + 1);
  if (addr.size() > 2 && addr.front() == '[' && addr.back() == ']')
    addr = addr.substr(1, addr.size() - 2);
  std::optional<IPAddress> ip = IPAddress::Parse(addr);
  if (!ip) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --resolve '", text, "': bad address"));
  }
  entry.address = *ip;
  return entry;
}

class SystemHostResolver::RequestImpl : public HostResolver::Request {
 public:
  RequestImpl(HostResolveResult* result, CompletionOnceCallback callback)
      : result_(result), callback_(std::move(callback)) {}
  void OnResolved(int error, HostResolveResult result) {
    *result_ = std::move(result);
    // The callback usually destroys this request (its owner resets it), so
    // it runs from the stack, not from a member about to be freed (ASan
    // caught TransportConnectJob doing exactly that).
    CompletionOnceCallback callback = std::move(callback_);
    std::move(callback)(error);
  }
  WeakPtr<RequestImpl> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

 private:
  HostResolveResult* result_;
  CompletionOnceCallback callback_;
  WeakPtrFactory<RequestImpl> weak_factory_{this};
};

SystemHostResolver::SystemHostResolver(WorkerPool* pool) : pool_(pool) {}
SystemHostResolver::~SystemHostResolver() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

void ResolveOverrides::Add(const ResolveOverride& entry) {
  overrides_.emplace(absl::StrCat(entry.host, ":", entry.port), entry.address);
  any_port_.emplace(entry.host, entry.address);
}

void SystemHostResolver::AddOverride(const ResolveOverride& entry) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  overrides_.Add(entry);
}

bool ResolveOverrides::Lookup(const std::string& host, uint16_t port,
                              HostResolveResult* result) const {
  const std::string name = absl::AsciiStrToLower(host);
  auto it = port == 0 ? any_port_.find(name)
                      : overrides_.find(absl::StrCat(name, ":", port));
  result->https = HttpsRecordInfo();  // never asked for an override
  if (it != (port == 0 ? any_port_.end() : overrides_.end())) {
    result->addresses = {it->second};
    result->source = DnsSource::kOverride;
    return true;
  }
  if (std::optional<IPAddress> ip = IPAddress::Parse(host)) {
    result->addresses = {*ip};
    result->source = DnsSource::kLiteral;
    return true;
  }
  return false;
}

int SystemHostResolver::Resolve(const std::string& host, uint16_t port,
                                HostResolveResult* result,
                                CompletionOnceCallback callback,
                                std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (overrides_.Lookup(host, port, result)) return OK;
  auto request = std::make_unique<RequestImpl>(result, std::move(callback));
  WeakPtr<RequestImpl> weak = request->GetWeakPtr();
  *out_request = std::move(request);
  struct Outcome {
    int error;
    HostResolveResult result;
  };
  pool_->PostTaskAndReplyWithResult<Outcome>(
      [host] {
        Outcome outcome{OK, {}};
        outcome.result.source = DnsSource::kNetwork;
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* info = nullptr;
        int rv = getaddrinfo(host.c_str(), nullptr, &hints, &info);
        if (rv != 0) {
          outcome.error = ERR_NAME_NOT_RESOLVED;
          outcome.result.detail = gai_strerror(rv);
          return outcome;
        }
        for (addrinfo* ai = info; ai; ai = ai->ai_next) {
          IPEndPoint ep;
          if (ep.FromSockAddr(ai->ai_addr, ai->ai_addrlen)) {
            bool seen = false;
            for (const IPAddress& a : outcome.result.addresses)
              seen |= a == ep.address();
            if (!seen) outcome.result.addresses.push_back(ep.address());
          }
        }
        freeaddrinfo(info);
        if (outcome.result.addresses.empty())
          outcome.error = ERR_NAME_NOT_RESOLVED;
        return outcome;
      },
      [weak](Outcome outcome) {
        if (RequestImpl* request = weak.get())
          request->OnResolved(outcome.error, std::move(outcome.result));
      });
  return ERR_IO_PENDING;
}

}  // namespace net
