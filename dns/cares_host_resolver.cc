#include "dns/cares_host_resolver.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dns/dns_response.h"
#include "dns/https_record.h"
#include "net/base/weak_ptr.h"

namespace net {

int MapCaresError(int status) {
  switch (status) {
    case ARES_SUCCESS:
      return OK;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_ENONAME:
    case ARES_EBADNAME:
      return ERR_NAME_NOT_RESOLVED;
    case ARES_ETIMEOUT:
    case ARES_ECONNREFUSED:
      // No answer from any server (a dead server on loopback refuses).
      return ERR_DNS_TIMED_OUT;
    case ARES_EFORMERR:
    case ARES_EBADRESP:
      return ERR_DNS_MALFORMED_RESPONSE;
    case ARES_ESERVFAIL:
    case ARES_EREFUSED:
    case ARES_ENOTIMP:
      return ERR_DNS_SERVER_FAILED;
    case ARES_ECANCELLED:
    case ARES_EDESTRUCTION:
      return ERR_ABORTED;
    case ARES_ENOMEM:
      return ERR_OUT_OF_MEMORY;
    default:
      return ERR_FAILED;
  }
}

namespace {

bool IsValidHostname(const std::string& host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '.' && c != '_')
      return false;
  }
  return true;
}

std::string JobKey(const std::string& name, HostCache::Kind kind) {
  const char* prefix = kind == HostCache::Kind::kTxt     ? "txt:"
                       : kind == HostCache::Kind::kHttps ? "https:"
                                                         : "addr:";
  return absl::StrCat(prefix, absl::AsciiStrToLower(name));
}

// The HTTPS query name of an https origin (RFC 9460 9.1): the host for port
// 443 (and port 0, no port known), "_PORT._https.HOST" for another port.
std::string HttpsQueryName(const std::string& host, uint16_t port) {
  if (port == 443 || port == 0) return host;
  return absl::StrCat("_", port, "._https.", host);
}

// The origin host of a port-prefixed HTTPS query name ("_PORT._https.HOST"
// -> HOST), or empty for any other name.
std::string HostOfPortPrefixedName(absl::string_view name) {
  if (name.size() < 2 || name[0] != '_') return "";
  const size_t dot = name.find('.');
  if (dot == absl::string_view::npos || dot < 2) return "";
  for (size_t i = 1; i < dot; ++i) {
    if (!absl::ascii_isdigit(name[i])) return "";
  }
  constexpr absl::string_view kScheme = "_https.";
  absl::string_view rest = name.substr(dot + 1);
  if (!absl::StartsWith(rest, kScheme) || rest.size() == kScheme.size())
    return "";
  return std::string(rest.substr(kScheme.size()));
}

// Fills |info|'s endpoint fields from ServiceMode |record| with effective
// TargetName |target|, answered for |query_name| (|via_alias|: at the end
// of an AliasMode chain). "." at the origin's own
// port-prefixed name (_PORT._https.HOST, not reached through an alias):
// RFC 9460 2.5.2 makes the owner the effective TargetName, but an Attrleaf
// name (RFC 8552) holds no addresses, and resolving it would cost the
// connection a second round trip only to fall back to HOST's. The endpoint
// is HOST, whose A/AAAA were asked in parallel, as "." means for port 443.
void SetEndpoint(const HttpsRecord& record, const std::string& target,
                 const std::string& query_name, bool via_alias,
                 HttpsRecordInfo* info) {
  info->priority = record.priority;
  info->target = target;
  if (record.target.empty() && !via_alias) {
    const std::string host = HostOfPortPrefixedName(query_name);
    if (!host.empty()) info->target = host;
  }
  info->alpn = record.alpn;
  info->no_default_alpn = record.no_default_alpn;
  info->port = record.port;
  info->ipv4_hints = record.ipv4_hints;
  info->ipv6_hints = record.ipv6_hints;
  info->ech_config_list = record.ech;
}

std::string Normalized(const std::string& raw) {
  std::string name = absl::AsciiStrToLower(raw);
  if (!name.empty() && name.back() == '.') name.pop_back();
  return name;
}

constexpr size_t kDnsHeaderBytes = 12;
// The RCODE of a stand-in answer: unassigned, so c-ares hands the answer to
// the query's callback as it is (it acts on FORMERR, SERVFAIL, NOTIMP and
// REFUSED itself).
constexpr uint8_t kStandInRcode = 15;
// UDP queries remembered at most (IDs are 16 bits; a query that times out is
// never answered, so the map is cleared when it grows this large).
constexpr size_t kMaxUdpQuestions = 4096;

uint16_t MessageId(const char* message) {
  return static_cast<uint16_t>((static_cast<uint8_t>(message[0]) << 8) |
                               static_cast<uint8_t>(message[1]));
}

// The question section of a query c-ares sends (one question, no name
// compression): from the header's end through QCLASS; empty if it does not
// parse.
std::string QuestionOf(absl::string_view query) {
  size_t pos = kDnsHeaderBytes;
  while (pos < query.size()) {
    const uint8_t len = static_cast<uint8_t>(query[pos]);
    if (len == 0) {
      const size_t end = pos + 1 + 4;  // the root label, QTYPE, QCLASS
      if (end > query.size()) return "";
      return std::string(query.substr(kDnsHeaderBytes, end - kDnsHeaderBytes));
    }
    if (len & 0xc0) return "";
    pos += 1 + len;
  }
  return "";
}

}  // namespace

// Watches one c-ares socket on the event loop.
class CaresHostResolver::SocketWatcher : public FdWatcher {
 public:
  SocketWatcher(CaresHostResolver* resolver, ares_socket_t fd)
      : resolver_(resolver), fd_(fd) {}
  void Update(bool read, bool write) {
    controller_.Watch(EventLoop::Current(), fd_, read, write, this);
  }
  void OnFdReadable(int fd) override {
    resolver_->ProcessFd(fd_, ARES_SOCKET_BAD);
  }
  void OnFdWritable(int fd) override {
    resolver_->ProcessFd(ARES_SOCKET_BAD, fd_);
  }

 private:
  CaresHostResolver* const resolver_;
  const ares_socket_t fd_;
  FdWatchController controller_;
};

// One request's view of a lookup.
class CaresHostResolver::RequestImpl : public HostResolver::Request {
 public:
  RequestImpl(Job* job, HostResolveResult* result,
              std::vector<std::string>* texts, CompletionOnceCallback callback)
      : job_(job),
        result_(result),
        texts_(texts),
        callback_(std::move(callback)) {}
  ~RequestImpl() override;
  void Complete(int error, const HostCache::Entry& entry,
                const std::string& detail) {
    job_ = nullptr;
    if (result_) {
      result_->addresses = entry.addresses;
      result_->source = DnsSource::kNetwork;
      result_->detail = detail;
      result_->https = entry.https ? *entry.https : HttpsRecordInfo();
      if (entry.https) result_->https.source = DnsSource::kNetwork;
    }
    if (texts_) *texts_ = entry.texts;
    // The callback may destroy this request (its owner's unique_ptr): run
    // it from a local, never from a member of a destroyed object.
    CompletionOnceCallback callback = std::move(callback_);
    std::move(callback)(error);
  }
  void Detach() { job_ = nullptr; }

 private:
  Job* job_;
  HostResolveResult* result_;
  std::vector<std::string>* texts_;
  CompletionOnceCallback callback_;
};

// One outstanding lookup (A+AAAA, or TXT) and the requests waiting for it.
class CaresHostResolver::Job {
 public:
  Job(std::string name, HostCache::Kind kind, bool prefetch)
      : name(std::move(name)), kind(kind), prefetch_only(prefetch) {}
  ~Job() {
    for (RequestImpl* r : requests) r->Detach();
  }

  const std::string name;
  const HostCache::Kind kind;
  bool prefetch_only;  // every requester so far was a prefetch
  std::list<RequestImpl*> requests;
  int pending_queries = 0;
  // Accumulated over the queries.
  HostCache::Entry entry;
  uint32_t min_ttl = UINT32_MAX;
  std::optional<uint32_t> negative_ttl;
  int first_error = OK;
  int answered_empty = 0;  // NXDOMAIN / NODATA answers
  std::string detail;
  bool started = false;
  // HTTPS (kind kHttps): the name asked now (the job's name, then each
  // alias target in turn) and what the answers said so far.
  std::string query_name;
  HttpsRecordInfo https;
};

CaresHostResolver::RequestImpl::~RequestImpl() {
  if (job_) job_->requests.remove(this);
}

struct CaresHostResolver::QueryContext {
  CaresHostResolver* resolver;
  std::string key;
  int qtype;
};

CaresHostResolver::CaresHostResolver(const CaresResolverConfig& config)
    : config_(config),
      cache_(config.cache_size, config.clock, config.max_negative_ttl) {}

absl::StatusOr<std::unique_ptr<CaresHostResolver>> CaresHostResolver::Create(
    const CaresResolverConfig& config) {
  static int init = ares_library_init(ARES_LIB_INIT_ALL);
  if (init != ARES_SUCCESS)
    return absl::InternalError("ares_library_init failed");
  std::unique_ptr<CaresHostResolver> resolver(new CaresHostResolver(config));
  ares_options options{};
  int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
             ARES_OPT_FLAGS;
  options.sock_state_cb = &CaresHostResolver::SockStateCallback;
  options.sock_state_cb_data = resolver.get();
  options.timeout =
      static_cast<int>(absl::ToInt64Milliseconds(config.attempt_timeout));
  options.tries = std::max(1, config.tries);
  options.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES;
  if (config.edns) {
    options.flags |= ARES_FLAG_EDNS;
    options.ednspsz = config.edns_payload;
    mask |= ARES_OPT_EDNSPSZ;
  }
  int rv = ares_init_options(&resolver->channel_, &options, mask);
  if (rv != ARES_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("ares_init_options: ", ares_strerror(rv)));
  }
  static const ares_socket_functions kSocketFunctions = {
      &CaresHostResolver::SocketOpen, &CaresHostResolver::SocketClose,
      &CaresHostResolver::SocketConnect, &CaresHostResolver::SocketRecvFrom,
      &CaresHostResolver::SocketSendv};
  ares_set_socket_functions(resolver->channel_, &kSocketFunctions,
                            resolver.get());
  if (!config.servers.empty()) {
    std::string csv = absl::StrJoin(config.servers, ",");
    rv = ares_set_servers_ports_csv(resolver->channel_, csv.c_str());
    if (rv != ARES_SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad DNS server list '", csv, "': ", ares_strerror(rv)));
    }
  }
  return resolver;
}

CaresHostResolver::~CaresHostResolver() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  destroying_ = true;
  timer_.Stop();
  // Fails every outstanding query with ARES_EDESTRUCTION; the callbacks
  // only free their contexts while destroying_ is set.
  if (channel_) ares_destroy(channel_);
  jobs_.clear();
  sockets_.clear();
}

void CaresHostResolver::SockStateCallback(void* data, ares_socket_t fd,
                                          int readable, int writable) {
  auto* self = static_cast<CaresHostResolver*>(data);
  if (self->destroying_) return;
  if (!readable && !writable) {
    self->sockets_.erase(fd);
    return;
  }
  std::unique_ptr<SocketWatcher>& watcher = self->sockets_[fd];
  if (!watcher) watcher = std::make_unique<SocketWatcher>(self, fd);
  watcher->Update(readable, writable);
}

void CaresHostResolver::ProcessFd(ares_socket_t read_fd,
                                  ares_socket_t write_fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  ares_process_fd(channel_, read_fd, write_fd);
  ArmTimer();
}

ares_socket_t CaresHostResolver::SocketOpen(int domain, int type, int protocol,
                                            void* data) {
  auto* self = static_cast<CaresHostResolver*>(data);
  // c-ares configures none of a user-managed socket's options: it must be
  // non-blocking (and close-on-exec, and for TCP without Nagle) from here.
  const ares_socket_t fd =
      ::socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
  if (fd == ARES_SOCKET_BAD) return fd;
  if (type == SOCK_DGRAM) {
    self->udp_sockets_.insert(fd);
  } else if (type == SOCK_STREAM) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return fd;
}

int CaresHostResolver::SocketClose(ares_socket_t fd, void* data) {
  static_cast<CaresHostResolver*>(data)->udp_sockets_.erase(fd);
  return ::close(fd);
}

int CaresHostResolver::SocketConnect(ares_socket_t fd, const sockaddr* address,
                                     ares_socklen_t address_len, void* data) {
  return ::connect(fd, address, address_len);
}

ares_ssize_t CaresHostResolver::SocketRecvFrom(ares_socket_t fd, void* buffer,
                                               size_t length, int flags,
                                               sockaddr* from,
                                               ares_socklen_t* from_len,
                                               void* data) {
  auto* self = static_cast<CaresHostResolver*>(data);
  const ssize_t n = ::recvfrom(fd, buffer, length, flags, from, from_len);
  if (n <= 0 || !self->udp_sockets_.contains(fd)) return n;
  return static_cast<ares_ssize_t>(self->CheckUdpAnswer(
      static_cast<char*>(buffer), static_cast<size_t>(n), length));
}

ares_ssize_t CaresHostResolver::SocketSendv(ares_socket_t fd,
                                            const iovec* vector, int count,
                                            void* data) {
  auto* self = static_cast<CaresHostResolver*>(data);
  if (self->udp_sockets_.contains(fd)) {
    std::string query;
    for (int i = 0; i < count; ++i) {
      query.append(static_cast<const char*>(vector[i].iov_base),
                   vector[i].iov_len);
    }
    std::string question = QuestionOf(query);
    if (query.size() >= kDnsHeaderBytes && !question.empty()) {
      if (self->udp_questions_.size() >= kMaxUdpQuestions)
        self->udp_questions_.clear();
      self->udp_questions_[MessageId(query.data())] = std::move(question);
    }
  }
  return ::writev(fd, vector, count);
}

size_t CaresHostResolver::CheckUdpAnswer(char* buffer, size_t length,
                                         size_t capacity) {
  if (length < 2) return length;
  const uint16_t id = MessageId(buffer);
  auto it = udp_questions_.find(id);
  if (it == udp_questions_.end()) return length;  // not ours: c-ares decides
  // Marked truncated: c-ares asks again over TCP.
  if (length >= 3 && (static_cast<uint8_t>(buffer[2]) & 0x02)) return length;
  absl::StatusOr<DnsResponse> parsed =
      ParseDnsResponse(absl::string_view(buffer, length));
  if (parsed.ok()) return length;
  // An answer to another question (late, or spoofed) is c-ares's to drop;
  // one cut short inside the question cannot be told apart, and is ours.
  const std::string& question = it->second;
  const size_t compared = std::min(
      question.size(), length > kDnsHeaderBytes ? length - kDnsHeaderBytes : 0);
  for (size_t i = 0; i < compared; ++i) {
    if (absl::ascii_tolower(buffer[kDnsHeaderBytes + i]) !=
        absl::ascii_tolower(question[i]))
      return length;
  }
  std::string stand_in(kDnsHeaderBytes, '\0');
  stand_in[0] = static_cast<char>(id >> 8);
  stand_in[1] = static_cast<char>(id & 0xff);
  stand_in[2] = static_cast<char>(0x80);  // QR: a response
  stand_in[3] = static_cast<char>(kStandInRcode);
  stand_in[5] = 1;  // QDCOUNT
  stand_in += question;
  if (stand_in.size() > capacity) return length;
  malformed_answers_[id] =
      absl::StrCat("the DNS server's answer (", length,
                   " bytes) is malformed: ", parsed.status().message());
  std::memcpy(buffer, stand_in.data(), stand_in.size());
  return stand_in.size();
}

void CaresHostResolver::ArmTimer() {
  timeval tv;
  if (ares_timeout(channel_, nullptr, &tv) == nullptr) {
    timer_.Stop();
    return;
  }
  absl::Duration delay =
      absl::Seconds(tv.tv_sec) + absl::Microseconds(tv.tv_usec);
  timer_.Start(delay, [this] { ProcessFd(ARES_SOCKET_BAD, ARES_SOCKET_BAD); });
}

int CaresHostResolver::Resolve(const std::string& host, uint16_t port,
                               HostResolveResult* result,
                               CompletionOnceCallback callback,
                               std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (overrides_.Lookup(host, port, result)) return OK;
  return StartOrJoin(host, HostCache::Kind::kAddresses, false, result, nullptr,
                     std::move(callback), out_request);
}

int CaresHostResolver::Prefetch(const std::string& host, uint16_t port,
                                HostResolveResult* result,
                                CompletionOnceCallback callback,
                                std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (config_.query_https)
    return ResolveHttpsImpl(host, port, /*prefetch=*/true, result,
                            std::move(callback), out_request);
  if (overrides_.Lookup(host, port, result)) return OK;
  return StartOrJoin(host, HostCache::Kind::kAddresses, true, result, nullptr,
                     std::move(callback), out_request);
}

int CaresHostResolver::ResolveTxt(const std::string& name,
                                  std::vector<std::string>* records,
                                  CompletionOnceCallback callback,
                                  std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return StartOrJoin(name, HostCache::Kind::kTxt, false, nullptr, records,
                     std::move(callback), out_request);
}

int CaresHostResolver::StartOrJoin(const std::string& raw_name,
                                   HostCache::Kind kind, bool prefetch,
                                   HostResolveResult* result,
                                   std::vector<std::string>* texts,
                                   CompletionOnceCallback callback,
                                   std::unique_ptr<Request>* out_request) {
  std::string name = Normalized(raw_name);
  if (!IsValidHostname(name)) {
    if (result) result->detail = "invalid host name";
    return ERR_NAME_NOT_RESOLVED;
  }
  bool was_prefetched = false;
  if (const HostCache::Entry* entry =
          cache_.Lookup(name, kind, &was_prefetched)) {
    if (result) {
      result->addresses = entry->addresses;
      // A prefetch's own re-lookup is a plain cache hit.
      result->source = was_prefetched && !prefetch ? DnsSource::kPrefetch
                                                   : DnsSource::kCache;
      if (entry->error != OK)
        result->detail = "negative cache entry (NXDOMAIN)";
      result->https = entry->https ? *entry->https : HttpsRecordInfo();
      if (entry->https) result->https.source = result->source;
    }
    if (texts) *texts = entry->texts;
    return entry->error;
  }
  std::string key = JobKey(name, kind);
  auto it = jobs_.find(key);
  Job* job;
  if (it != jobs_.end()) {
    job = it->second.get();
    ++coalesced_;
    if (!prefetch) job->prefetch_only = false;
  } else {
    auto new_job = std::make_unique<Job>(name, kind, prefetch);
    job = new_job.get();
    jobs_[key] = std::move(new_job);
    if (running_jobs_ < std::max<size_t>(config_.max_concurrent_jobs, 1)) {
      StartJob(job);
    } else {
      queued_jobs_.push_back(key);
    }
  }
  auto request =
      std::make_unique<RequestImpl>(job, result, texts, std::move(callback));
  job->requests.push_back(request.get());
  *out_request = std::move(request);
  return ERR_IO_PENDING;
}

void CaresHostResolver::StartJob(Job* job) {
  ++running_jobs_;
  job->started = true;
  if (job->kind == HostCache::Kind::kTxt) {
    SendQuery(job, kDnsTypeTxt);
  } else if (job->kind == HostCache::Kind::kHttps) {
    job->query_name = job->name;
    SendQuery(job, kDnsTypeHttps);
  } else {
    SendQuery(job, kDnsTypeA);
    SendQuery(job, kDnsTypeAaaa);
  }
  ArmTimer();
}

void CaresHostResolver::StartQueuedJobs() {
  while (!queued_jobs_.empty() && running_jobs_ < config_.max_concurrent_jobs) {
    auto it = jobs_.find(queued_jobs_.front());
    queued_jobs_.pop_front();
    if (it != jobs_.end() && !it->second->started) StartJob(it->second.get());
  }
}

void CaresHostResolver::SendQuery(Job* job, int qtype) {
  ++job->pending_queries;
  ++queries_sent_;
  if (qtype == kDnsTypeHttps) ++https_queries_sent_;
  auto* context = new QueryContext{this, JobKey(job->name, job->kind), qtype};
  // c-ares 1.18 parses no type 65 answer, but ares_query hands any answer
  // back raw (ParseDnsResponse keeps the HTTPS RDATA).
  const std::string& name =
      job->query_name.empty() ? job->name : job->query_name;
  ares_query(channel_, name.c_str(), 1 /* IN */, qtype,
             &CaresHostResolver::OnQueryComplete, context);
}

void CaresHostResolver::OnQueryComplete(void* arg, int status, int timeouts,
                                        unsigned char* abuf, int alen) {
  std::unique_ptr<QueryContext> context(static_cast<QueryContext*>(arg));
  if (context->resolver->destroying_) return;
  context->resolver->OnQueryResult(context->key, context->qtype, status, abuf,
                                   alen);
}

void CaresHostResolver::OnQueryResult(const std::string& key, int qtype,
                                      int status, const unsigned char* abuf,
                                      int alen) {
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return;
  Job* job = it->second.get();
  --job->pending_queries;

  if (abuf && alen >= 2) {
    const uint16_t id = MessageId(reinterpret_cast<const char*>(abuf));
    udp_questions_.erase(id);
    if (auto m = malformed_answers_.find(id); m != malformed_answers_.end()) {
      // The stand-in for a malformed answer (CheckUdpAnswer).
      status = ARES_EBADRESP;
      if (job->detail.empty()) job->detail = m->second;
      malformed_answers_.erase(m);
      abuf = nullptr;
      alen = 0;
    }
  }

  // Parse whatever came back, success or NXDOMAIN (for the SOA).
  absl::StatusOr<DnsResponse> response =
      absl::InvalidArgumentError("no answer");
  if (abuf && alen > 0) {
    response = ParseDnsResponse(absl::string_view(
        reinterpret_cast<const char*>(abuf), static_cast<size_t>(alen)));
  }
  if (status == ARES_SUCCESS && !response.ok()) {
    status = ARES_EBADRESP;
    job->detail = std::string(response.status().message());
  }
  if (job->kind == HostCache::Kind::kHttps) {
    OnHttpsAnswer(job, key, status, response);
    return;
  }
  if (response.ok()) {
    // Only records owned by the name asked (or its CNAME chain) answer it.
    const std::vector<const DnsRecord*> answers = response->AnswersFor(
        job->name, static_cast<uint16_t>(qtype), &job->min_ttl);
    for (const DnsRecord* r : answers) {
      job->min_ttl = std::min(job->min_ttl, r->ttl);
      if (r->address) job->entry.addresses.push_back(*r->address);
      if (qtype == kDnsTypeTxt) job->entry.texts.push_back(r->text);
    }
    if (status == ARES_SUCCESS && answers.empty()) status = ARES_ENODATA;
    if (std::optional<uint32_t> neg = response->NegativeTtl())
      job->negative_ttl =
          std::min(job->negative_ttl.value_or(UINT32_MAX), *neg);
  }
  if (status == ARES_ENOTFOUND || status == ARES_ENODATA) {
    ++job->answered_empty;
  } else if (status != ARES_SUCCESS && job->first_error == OK) {
    job->first_error = MapCaresError(status);
    if (job->detail.empty()) job->detail = ares_strerror(status);
  }
  if (job->pending_queries == 0) FinishJob(key);
}

void CaresHostResolver::OnHttpsAnswer(
    Job* job, const std::string& key, int status,
    const absl::StatusOr<DnsResponse>& response) {
  HttpsRecordInfo& info = job->https;
  const bool empty = status == ARES_ENODATA || status == ARES_ENOTFOUND;
  if (status != ARES_SUCCESS && !empty) {
    // SERVFAIL, REFUSED, a timeout, a malformed message: the client is
    // SVCB-optional and connects as without the record.
    info.status = HttpsRecordStatus::kFailed;
    info.detail = absl::StrCat(
        "the HTTPS query for ", job->query_name,
        " failed: ", ErrorToShortString(MapCaresError(status)), " (",
        job->detail.empty() ? ares_strerror(status) : job->detail, ")");
    FinishJob(key);
    return;
  }
  std::vector<HttpsAnswerRecord> answers;
  if (response.ok()) {
    // Only records owned by the name asked (or its CNAME chain) answer it:
    // an HTTPS record of another name must not steer this origin.
    for (const DnsRecord* r :
         response->AnswersFor(job->query_name, kDnsTypeHttps, &job->min_ttl)) {
      job->min_ttl = std::min(job->min_ttl, r->ttl);
      answers.push_back({r->name, r->rdata});
    }
    if (std::optional<uint32_t> neg = response->NegativeTtl())
      job->negative_ttl =
          std::min(job->negative_ttl.value_or(UINT32_MAX), *neg);
  }
  const HttpsRRSetVerdict verdict =
      EvaluateHttpsRRSet(answers, config_.https_tls_alpns);
  using Kind = HttpsRRSetVerdict::Kind;
  switch (verdict.kind) {
    case Kind::kEmpty:
      if (info.alias_chain.empty()) {
        info.status = HttpsRecordStatus::kNone;
      } else {
        // RFC 9460 3: the chain's last name is the endpoint, with the
        // origin's port and no SvcParams.
        info.status = HttpsRecordStatus::kUsed;
        info.target = job->query_name;
        info.detail = absl::StrCat("the alias chain ends at ", job->query_name,
                                   ", which has no HTTPS record: its "
                                   "addresses, no SvcParams");
      }
      break;
    case Kind::kAlias: {
      const std::string& target = verdict.alias_target;
      const bool loop =
          target == job->name ||
          std::find(info.alias_chain.begin(), info.alias_chain.end(), target) !=
              info.alias_chain.end();
      if (loop || info.alias_chain.size() >= config_.max_https_aliases ||
          !IsValidHostname(target)) {
        // RFC 9460 3.1: the chain cannot be completed, so the record is as
        // if it did not exist.
        info.status = HttpsRecordStatus::kIgnored;
        info.detail =
            loop ? absl::StrCat("AliasMode loop at ", target)
            : IsValidHostname(target)
                ? absl::StrCat("more than ", config_.max_https_aliases,
                               " AliasMode hops (next: ", target, ")")
                : absl::StrCat("AliasMode target '", target,
                               "' is not a host name this client resolves");
        info.alias_chain.push_back(target);
        break;
      }
      info.alias_chain.push_back(target);
      job->query_name = target;
      SendQuery(job, kDnsTypeHttps);  // ProcessFd re-arms the timer
      return;
    }
    case Kind::kNoService:
    case Kind::kRejected:
      info.status = HttpsRecordStatus::kIgnored;
      info.detail = verdict.detail;
      info.records = verdict.records;
      break;
    case Kind::kService: {
      const HttpsRecord& r = verdict.record;
      if (!IsValidHostname(verdict.target)) {
        info.status = HttpsRecordStatus::kIgnored;
        info.detail = absl::StrCat("TargetName '", verdict.target,
                                   "' is not a host name this client "
                                   "resolves");
        break;
      }
      info.status = HttpsRecordStatus::kUsed;
      info.detail = verdict.detail;
      const bool via_alias = !info.alias_chain.empty();
      SetEndpoint(r, verdict.target, job->name, via_alias, &info);
      info.records = verdict.records;
      info.compatible_records = verdict.compatible;
      for (const auto& [record, target] : verdict.fallbacks) {
        if (!IsValidHostname(target)) continue;
        HttpsRecordInfo next;
        next.status = HttpsRecordStatus::kUsed;
        SetEndpoint(record, target, job->name, via_alias, &next);
        // Fallbacks are TCP's (a QUIC attempt falls back to TCP): not a
        // record whose ALPN set has no protocol TCP speaks (RFC 9460 7.1.2).
        bool tcp = false;
        for (const std::string& protocol : config_.https_tls_alpns)
          tcp = tcp || (protocol != "h3" && next.SupportsAlpn(protocol));
        if (tcp) info.fallbacks.push_back(std::move(next));
      }
      break;
    }
  }
  FinishJob(key);
}

// ResolveHttps's request: the origin's A/AAAA lookup and its HTTPS lookup
// side by side (each a request on a shared job), then the target's A/AAAA
// when the record names another host; completes as the file comment says.
class CaresHostResolver::HttpsRequest : public HostResolver::Request {
 public:
  // |prefetch|: the lookups are a prefetch's (their cache entries tagged
  // so; HostCache).
  HttpsRequest(CaresHostResolver* resolver, std::string host, bool prefetch,
               HostResolveResult* result)
      : resolver_(resolver),
        host_(std::move(host)),
        prefetch_(prefetch),
        result_(result) {}

  // OK or an error when both answers were cached (or the host is
  // invalid), else ERR_IO_PENDING and |callback| runs later.
  int Start(const std::string& qname, CompletionOnceCallback callback) {
    start_ = TimeTicks::Now();
    addr_rv_ = resolver_->StartOrJoin(
        host_, HostCache::Kind::kAddresses, prefetch_, &addr_, nullptr,
        [this](int rv) { OnSubLookup(&addr_rv_, &addr_request_, rv); },
        &addr_request_);
    if (addr_rv_ != ERR_IO_PENDING) addr_done_ = start_;
    https_rv_ = resolver_->StartOrJoin(
        qname, HostCache::Kind::kHttps, prefetch_, &https_, nullptr,
        [this](int rv) { OnSubLookup(&https_rv_, &https_request_, rv); },
        &https_request_);
    if (https_rv_ != ERR_IO_PENDING) https_done_ = start_;
    // The addresses came from a prefetch and the record did not (the
    // prefetch asked port 443's name, this origin is on another port, say):
    // the prefetch took DNS off the critical path, and the record does not
    // put it back. Its query goes on in its job and fills the cache for the
    // next connection. (Addresses merely cached, with the record's shorter
    // TTL run out, and a prefetch's own name whose record is still on its
    // way or expired, get the bounded extra wait below, as a cold lookup:
    // the record may carry the ECH configuration that hides the name.)
    if (addr_rv_ != ERR_IO_PENDING && https_rv_ == ERR_IO_PENDING &&
        !prefetch_ && addr_.source == DnsSource::kPrefetch && qname != host_) {
      https_request_.reset();
      https_given_up_ = true;
      addresses_prefetched_ = true;
    }
    int rv = ERR_IO_PENDING;
    if (TryFinish(&rv)) return rv;
    callback_ = std::move(callback);
    ArmExtraWait();
    return ERR_IO_PENDING;
  }

 private:
  void OnSubLookup(int* rv_slot, std::unique_ptr<Request>* request, int rv) {
    *rv_slot = rv;
    if (rv_slot == &addr_rv_) addr_done_ = TimeTicks::Now();
    if (rv_slot == &https_rv_) https_done_ = TimeTicks::Now();
    request->reset();
    MaybeComplete();
  }

  // A/AAAA in, the HTTPS answer not: give it a bounded extra time. Not for
  // a prefetch: it is off the critical path, and what it waits for (an
  // alias chain's next hop, say) is what the request will need; c-ares's
  // own timeouts bound it.
  void ArmExtraWait() {
    if (done_ || prefetch_ || https_rv_ != ERR_IO_PENDING ||
        addr_rv_ == ERR_IO_PENDING || extra_wait_.IsRunning())
      return;
    const CaresResolverConfig& c = resolver_->config_;
    absl::Duration extra =
        (addr_done_ - start_) * c.https_extra_wait_percent / 100;
    extra =
        std::clamp(extra, c.https_extra_wait_min,
                   std::max(c.https_extra_wait_min, c.https_extra_wait_max));
    extra_wait_.Start(extra, [this] {
      https_request_.reset();
      https_given_up_ = true;
      MaybeComplete();
    });
  }

  void MaybeComplete() {
    int rv = ERR_IO_PENDING;
    if (!TryFinish(&rv)) {
      ArmExtraWait();
      return;
    }
    // The callback may destroy this request: run it from a local.
    CompletionOnceCallback callback = std::move(callback_);
    std::move(callback)(rv);
  }

  // Finishes (filling the caller's result) when the answers in allow it.
  bool TryFinish(int* rv) {
    if (done_) return false;
    const bool https_in = https_rv_ != ERR_IO_PENDING || https_given_up_;
    if (!https_in) return false;
    HttpsRecordInfo info = https_given_up_ ? HttpsRecordInfo() : https_.https;
    if (https_given_up_) {
      info.status = HttpsRecordStatus::kNotInTime;
      info.detail =
          addresses_prefetched_
              ? "the addresses were prefetched and the HTTPS record was "
                "not: went without it (its query fills the cache)"
              : absl::StrCat(
                    "no HTTPS answer within ",
                    absl::FormatDuration(TimeTicks::Now() - addr_done_),
                    " of the A/AAAA answer; went without it");
    }
    if (addr_rv_ != ERR_IO_PENDING && !https_done_.is_null() &&
        https_done_ > addr_done_)
      info.wait = https_done_ - addr_done_;
    if (https_given_up_) info.wait = TimeTicks::Now() - addr_done_;
    const bool other_target = info.used() && info.target != host_;
    if (other_target) {
      if (!target_started_) {
        target_started_ = true;
        target_rv_ = resolver_->StartOrJoin(
            info.target, HostCache::Kind::kAddresses, prefetch_, &target_,
            nullptr,
            [this](int rv) { OnSubLookup(&target_rv_, &target_request_, rv); },
            &target_request_);
      }
      if (target_rv_ == ERR_IO_PENDING) {
        if (!HasHints(info)) return false;
        return FinishWithHints(info, rv);
      }
      if (target_rv_ == OK) {
        return Finish(target_, OK, info, rv);
      }
      // The target did not resolve. ECH in the record: no fallback that
      // would show the name in the clear (RFC 9460 9.3).
      const std::string why =
          absl::StrCat("the HTTPS record's target ", info.target,
                       " did not resolve (", ErrorToShortString(target_rv_),
                       target_.detail.empty() ? "" : ": ", target_.detail, ")");
      if (!info.ech_config_list.empty()) {
        info.detail = absl::StrCat(why,
                                   "; the record offers ECH, so the client "
                                   "does not fall back to the origin's "
                                   "addresses without it");
        HostResolveResult failed;
        failed.source = target_.source;
        failed.detail = info.detail;
        return Finish(failed, ERR_NAME_NOT_RESOLVED, info, rv);
      }
      if (addr_rv_ == ERR_IO_PENDING) return false;
      info.status = HttpsRecordStatus::kIgnored;
      info.detail =
          absl::StrCat(why, "; fell back to ", host_, "'s own addresses");
      return Finish(addr_, addr_rv_, info, rv);
    }
    if (addr_rv_ == ERR_IO_PENDING) {
      if (!info.used() || !HasHints(info)) return false;
      return FinishWithHints(info, rv);
    }
    return Finish(addr_, addr_rv_, info, rv);
  }

  static bool HasHints(const HttpsRecordInfo& info) {
    return !info.ipv4_hints.empty() || !info.ipv6_hints.empty();
  }

  bool FinishWithHints(HttpsRecordInfo info, int* rv) {
    HostResolveResult hinted;
    hinted.source = DnsSource::kNetwork;
    // IPv6 first, as an AAAA-then-A answer would be tried in order here.
    hinted.addresses = info.ipv6_hints;
    hinted.addresses.insert(hinted.addresses.end(), info.ipv4_hints.begin(),
                            info.ipv4_hints.end());
    info.addresses_from_hints = true;
    return Finish(hinted, OK, info, rv);
  }

  bool Finish(const HostResolveResult& addresses, int error,
              HttpsRecordInfo info, int* rv) {
    done_ = true;
    extra_wait_.Stop();
    result_->addresses = addresses.addresses;
    result_->source = addresses.source;
    result_->detail = addresses.detail;
    result_->https = std::move(info);
    // Whatever is still out keeps running in its job and fills the cache.
    addr_request_.reset();
    https_request_.reset();
    target_request_.reset();
    *rv = error == OK && result_->addresses.empty() ? ERR_NAME_NOT_RESOLVED
                                                    : error;
    return true;
  }

  CaresHostResolver* const resolver_;
  const std::string host_;
  const bool prefetch_;
  HostResolveResult* const result_;
  CompletionOnceCallback callback_;
  TimeTicks start_;
  HostResolveResult addr_, https_, target_;
  std::unique_ptr<Request> addr_request_, https_request_, target_request_;
  int addr_rv_ = ERR_IO_PENDING;
  int https_rv_ = ERR_IO_PENDING;
  int target_rv_ = ERR_IO_PENDING;
  TimeTicks addr_done_, https_done_;
  bool target_started_ = false;
  bool https_given_up_ = false;
  bool addresses_prefetched_ = false;
  bool done_ = false;
  OneShotTimer extra_wait_;
};

int CaresHostResolver::ResolveHttps(const std::string& host, uint16_t port,
                                    HostResolveResult* result,
                                    CompletionOnceCallback callback,
                                    std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!config_.query_https)
    return Resolve(host, port, result, std::move(callback), out_request);
  return ResolveHttpsImpl(host, port, /*prefetch=*/false, result,
                          std::move(callback), out_request);
}

int CaresHostResolver::ResolveHttpsImpl(const std::string& host, uint16_t port,
                                        bool prefetch,
                                        HostResolveResult* result,
                                        CompletionOnceCallback callback,
                                        std::unique_ptr<Request>* out_request) {
  if (overrides_.Lookup(host, port, result)) return OK;
  const std::string name = Normalized(host);
  if (!IsValidHostname(name)) {
    result->detail = "invalid host name";
    return ERR_NAME_NOT_RESOLVED;
  }
  auto request = std::make_unique<HttpsRequest>(this, name, prefetch, result);
  int rv = request->Start(HttpsQueryName(name, port), std::move(callback));
  if (rv == ERR_IO_PENDING) *out_request = std::move(request);
  return rv;
}

void CaresHostResolver::FinishJob(const std::string& key) {
  auto it = jobs_.find(key);
  std::unique_ptr<Job> job = std::move(it->second);
  jobs_.erase(it);
  --running_jobs_;
  StartQueuedJobs();

  int error;
  if (job->kind == HostCache::Kind::kHttps) {
    // Always OK: the HttpsRecordInfo says what came of it. Failures are
    // not cached (the next connection asks again).
    error = OK;
    job->entry.error = OK;
    job->entry.from_prefetch = job->prefetch_only;
    job->entry.https = std::make_shared<const HttpsRecordInfo>(job->https);
    if (job->https.status != HttpsRecordStatus::kFailed) {
      absl::Duration ttl =
          job->https.status == HttpsRecordStatus::kNone
              ? (job->negative_ttl ? absl::Seconds(*job->negative_ttl)
                                   : config_.default_negative_ttl)
              : absl::Seconds(job->min_ttl == UINT32_MAX ? 0 : job->min_ttl);
      // A negative answer's TTL is bounded like any negative entry.
      if (job->https.status == HttpsRecordStatus::kNone)
        ttl = std::min(ttl, config_.max_negative_ttl);
      cache_.Set(job->name, job->kind, job->entry, ttl);
    }
    EventLoop::Current()->PostTask([job = std::move(job)]() mutable {
      while (!job->requests.empty()) {
        RequestImpl* request = job->requests.front();
        job->requests.pop_front();
        request->Complete(OK, job->entry, job->detail);
      }
    });
    return;
  }
  bool has_answer = !job->entry.addresses.empty() || !job->entry.texts.empty();
  int queries = job->kind == HostCache::Kind::kTxt ? 1 : 2;
  if (has_answer) {
    error = OK;
    job->entry.error = OK;
    job->entry.from_prefetch = job->prefetch_only;
    cache_.Set(job->name, job->kind, job->entry, absl::Seconds(job->min_ttl));
  } else if (job->answered_empty == queries) {
    // Authoritatively nothing: negative entry per the SOA (RFC 2308).
    error = ERR_NAME_NOT_RESOLVED;
    job->entry.error = error;
    job->detail = "no such name (NXDOMAIN or no data)";
    absl::Duration ttl = job->negative_ttl ? absl::Seconds(*job->negative_ttl)
                                           : config_.default_negative_ttl;
    cache_.Set(job->name, job->kind, job->entry, ttl);
  } else {
    error = job->first_error != OK ? job->first_error : ERR_NAME_NOT_RESOLVED;
  }
  // Deliver from a fresh task: never inside ares_query or the caller's call.
  EventLoop::Current()->PostTask([job = std::move(job), error]() mutable {
    while (!job->requests.empty()) {
      RequestImpl* request = job->requests.front();
      job->requests.pop_front();
      request->Complete(error, job->entry, job->detail);
    }
  });
}

}  // namespace net
