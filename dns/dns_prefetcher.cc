#include "dns/dns_prefetcher.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "net/base/event_loop.h"

namespace net {

std::map<std::string, uint16_t> LowerCaseKeys(
    std::map<std::string, uint16_t> ports) {
  std::map<std::string, uint16_t> lower;
  for (auto& [host, port] : ports)
    lower.emplace(absl::AsciiStrToLower(host), port);
  return lower;
}

DnsPrefetcher::DnsPrefetcher(HostResolver* resolver, size_t max_concurrent,
                             std::map<std::string, uint16_t> ports)
    : resolver_(resolver),
      max_concurrent_(std::max<size_t>(max_concurrent, 1)),
      ports_(LowerCaseKeys(std::move(ports))) {}

DnsPrefetcher::~DnsPrefetcher() = default;

void DnsPrefetcher::Prefetch(const std::vector<std::string>& hosts) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  for (const std::string& raw : hosts) {
    std::string host = absl::AsciiStrToLower(raw);
    if (host.empty()) continue;
    if (!seen_.insert(host).second) {
      ++duplicates_;
      continue;
    }
    queue_.push_back(host);
  }
  StartMore();
  MaybeIdle();
}

void DnsPrefetcher::StartMore() {
  while (!queue_.empty() && in_flight_.size() < max_concurrent_) {
    std::string host = queue_.front();
    queue_.pop_front();
    auto lookup = std::make_unique<Lookup>();
    Lookup* raw = lookup.get();
    in_flight_[host] = std::move(lookup);
    ++started_;
    max_in_flight_seen_ = std::max(max_in_flight_seen_, in_flight_.size());
    auto port = ports_.find(host);
    int rv = resolver_->Prefetch(
        host, port == ports_.end() ? 0 : port->second, &raw->result,
        [this, host](int rv) { OnDone(host, rv); }, &raw->request);
    if (rv != ERR_IO_PENDING) {
      // Answered from the cache or an override: report it from a task, so
      // observers never run inside Prefetch().
      EventLoop::Current()->PostTask([this, host, rv] { OnDone(host, rv); });
    }
  }
}

void DnsPrefetcher::OnDone(const std::string& host, int result) {
  auto it = in_flight_.find(host);
  if (it == in_flight_.end()) return;
  std::unique_ptr<Lookup> lookup = std::move(it->second);
  in_flight_.erase(it);
  ++completed_;
  for (Observer* observer : observers_)
    observer->OnHostPrefetched(host, result, lookup->result);
  StartMore();
  MaybeIdle();
}

void DnsPrefetcher::WhenIdle(absl::AnyInvocable<void()> callback) {
  idle_callbacks_.push_back(std::move(callback));
  MaybeIdle();
}

void DnsPrefetcher::MaybeIdle() {
  if (!queue_.empty() || !in_flight_.empty() || idle_callbacks_.empty()) return;
  std::vector<absl::AnyInvocable<void()>> callbacks =
      std::move(idle_callbacks_);
  idle_callbacks_.clear();
  for (auto& callback : callbacks)
    EventLoop::Current()->PostTask(std::move(callback));
}

std::vector<std::string> ExtractLinkHosts(absl::string_view html,
                                          const Url& base) {
  std::vector<std::string> hosts;
  std::string lower = absl::AsciiStrToLower(html);
  for (const char* attr : {"href", "src"}) {
    size_t pos = 0;
    while ((pos = lower.find(attr, pos)) != std::string::npos) {
      pos += strlen(attr);
      size_t p = pos;
      while (p < lower.size() && absl::ascii_isspace(lower[p])) ++p;
      if (p >= lower.size() || lower[p] != '=') continue;
      ++p;
      while (p < lower.size() && absl::ascii_isspace(lower[p])) ++p;
      if (p >= lower.size()) break;
      char quote = lower[p];
      size_t start, end;
      if (quote == '"' || quote == '\'') {
        start = p + 1;
        end = lower.find(quote, start);
      } else {
        start = p;
        end = lower.find_first_of(" \t\r\n>", start);
      }
      if (end == std::string::npos) break;
      absl::StatusOr<Url> url = base.Resolve(html.substr(start, end - start));
      pos = end;
      if (!url.ok() || url->host() == base.host()) continue;
      if (std::find(hosts.begin(), hosts.end(), url->host()) == hosts.end())
        hosts.push_back(url->host());
    }
  }
  return hosts;
}

}  // namespace net
