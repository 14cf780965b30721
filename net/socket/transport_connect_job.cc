#include "net/socket/transport_connect_job.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace net {

TransportConnectJob::TransportConnectJob(HostResolver* resolver,
                                         ClientSocketFactory* factory,
                                         std::string host, uint16_t port,
                                         absl::Duration connect_timeout)
    : TransportConnectJob(resolver, factory, std::move(host), port,
                          connect_timeout, Options()) {}

TransportConnectJob::TransportConnectJob(HostResolver* resolver,
                                         ClientSocketFactory* factory,
                                         std::string host, uint16_t port,
                                         absl::Duration connect_timeout,
                                         Options options)
    : resolver_(resolver),
      factory_(factory),
      host_(std::move(host)),
      port_(port),
      connect_timeout_(connect_timeout),
      options_(std::move(options)) {
  if (options_.connect_to) {
    auto [to_host, to_port] = options_.connect_to->Apply(host_, port_);
    if (to_host != host_ || to_port != port_) {
      via_ = absl::StrCat(" (connect-to for ", host_, ":", port_, ")");
      host_ = std::move(to_host);
      port_ = to_port;
    }
  }
}

TransportConnectJob::~TransportConnectJob() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int TransportConnectJob::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (options_.resolved) {
    resolved_ = *std::move(options_.resolved);
    options_.resolved.reset();
    address_index_ = options_.first_address;
    if (address_index_ >= resolved_.addresses.size()) {
      // A retry's addresses are its caller's: none left to try is the
      // lookup's failure, not an index past the end.
      error_detail_ = "no address left to connect to";
      return ERR_NAME_NOT_RESOLVED;
    }
    next_state_ = STATE_CONNECT;
  } else {
    next_state_ = STATE_RESOLVE_HOST;
  }
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

void TransportConnectJob::ResumeAfterHostResolved() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(phase_ == Phase::kHostResolved);
  next_state_ = STATE_HOST_RESOLVED;
  OnIOComplete(OK);
}

void TransportConnectJob::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(rv);
}

int TransportConnectJob::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_RESOLVE_HOST:
        rv = DoResolveHost();
        break;
      case STATE_RESOLVE_HOST_COMPLETE:
        rv = DoResolveHostComplete(rv);
        break;
      case STATE_HOST_RESOLVED:
        rv = DoHostResolved();
        break;
      case STATE_CONNECT:
        rv = DoConnect();
        break;
      case STATE_CONNECT_COMPLETE:
        rv = DoConnectComplete(rv);
        break;
      default:
        NET_NOTREACHED();
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  if (rv == OK) phase_ = Phase::kDone;
  return rv;
}

int TransportConnectJob::DoResolveHost() {
  phase_ = Phase::kResolveHost;
  // After the record's endpoint failed, the lookup of the next endpoint
  // (another record's target, or the origin's own addresses) is part of the
  // connect: the trace keeps the first lookup's stamps.
  if (fallback_ == Fallback::kNone) {
    timing_.dns_start = options_.clock->NowTicks();
    looked_up_ = true;
  }
  next_state_ = STATE_RESOLVE_HOST_COMPLETE;
  auto callback = [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  };
  int rv = options_.https_record && via_.empty() && fallback_ == Fallback::kNone
               ? resolver_->ResolveHttps(host_, port_, &resolved_,
                                         std::move(callback), &resolve_request_)
               : resolver_->Resolve(target_host(), port_, &resolved_,
                                    std::move(callback), &resolve_request_);
  resolved_synchronously_ = rv != ERR_IO_PENDING;
  return rv;
}

int TransportConnectJob::DoResolveHostComplete(int result) {
  resolve_request_.reset();
  if (fallback_ != Fallback::kNone) {
    // The record (the endpoint now tried, or "ignored" for the origin's
    // own) stays what the connection uses and the trace shows.
    resolved_.https = timing_.dns_https;
  } else {
    timing_.dns_end = resolved_synchronously_ ? timing_.dns_start
                                              : options_.clock->NowTicks();
    timing_.dns_source = resolved_.source;
    timing_.dns_https = resolved_.https;
  }
  if (result == OK && resolved_.addresses.empty())
    result = ERR_NAME_NOT_RESOLVED;
  if (result != OK) {
    // Another record's target that does not resolve: the next endpoint
    // (the addresses at hand are none now).
    addresses_of_.clear();
    if (fallback_ == Fallback::kNextRecord &&
        TryNextEndpoint(result, /*connect_failure=*/false))
      return OK;
    if (fallback_ != Fallback::kNone) {
      // The connection's failure is the endpoints': say so, and what the
      // last fallback's lookup found.
      error_detail_ = absl::StrCat(
          "connecting to the endpoints of ", host_, "'s HTTPS record failed (",
          endpoint_failures_, "); then resolving ", target_host(), ": ",
          resolved_.detail.empty() ? ErrorToShortString(result)
                                   : resolved_.detail);
      phase_ = Phase::kTransportConnect;  // the connects' failure
      return connect_error_;
    }
    error_detail_ =
        absl::StrCat("resolving ", target_host(), via_, ": ",
                     resolved_.detail.empty() ? ErrorToShortString(result)
                                              : resolved_.detail);
    return result;
  }
  address_index_ = 0;
  if (fallback_ != Fallback::kNone) addresses_of_ = target_host();
  // (The hook ran for the first lookup; a later endpoint is this connect's
  // fallback, not a new decision.)
  next_state_ = options_.on_host_resolved && fallback_ == Fallback::kNone
                    ? STATE_HOST_RESOLVED
                    : STATE_CONNECT;
  return OK;
}

int TransportConnectJob::DoHostResolved() {
  phase_ = Phase::kHostResolved;
  int rv = options_.on_host_resolved(resolved_);
  if (rv == OK) next_state_ = STATE_CONNECT;
  return rv;
}

int TransportConnectJob::DoConnect() {
  phase_ = Phase::kTransportConnect;
  if (timing_.connect_start.is_null())
    timing_.connect_start = options_.clock->NowTicks();
  const IPEndPoint endpoint(resolved_.addresses[address_index_],
                            connect_port());
  timing_.remote_address = endpoint.ToString();
  socket_ = factory_->CreateTransportClientSocket(endpoint, connect_timeout_,
                                                  options_.tcp);
  if (!socket_) {
    error_detail_ = "the socket factory made no transport socket";
    return ERR_UNEXPECTED;
  }
  next_state_ = STATE_CONNECT_COMPLETE;
  return socket_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  });
}

int TransportConnectJob::DoConnectComplete(int result) {
  if (result == OK) {
    timing_.connect_end = options_.clock->NowTicks();
    return OK;
  }
  socket_.reset();
  if (address_index_ + 1 < resolved_.addresses.size()) {
    ++address_index_;  // Try the next address.
    next_state_ = STATE_CONNECT;
    return OK;
  }
  if (TryNextEndpoint(result, /*connect_failure=*/true)) return OK;
  error_detail_ = absl::StrCat(
      "connecting to ", target_host(), ":", connect_port(), via_,
      connect_port() != port_ ? " (the port of its HTTPS record)" : "", ": ",
      ErrorToShortString(result));
  return result;
}

bool TransportConnectJob::TryNextEndpoint(int result, bool connect_failure) {
  HttpsRecordInfo& https = resolved_.https;
  // Only a job that looked the record up itself (a retry's addresses are
  // its caller's: no lookup of its own).
  if (!options_.https_record || !via_.empty() || resolver_ == nullptr ||
      !looked_up_ || fallback_ == Fallback::kOrigin || !https.used())
    return false;
  if (fallback_ == Fallback::kNone) {
    next_endpoints_ = std::move(https.fallbacks);
    https.fallbacks.clear();
    // With ECH on and every record of the RRSet carrying ECH, the client
    // is SVCB-reliant (draft-ietf-tls-svcb-ech, "Disabling fallback"; as
    // Chromium): it never falls back to the origin's own endpoint, which
    // would put the name in the clear.
    svcb_reliant_ = options_.ech && !https.ech_config_list.empty();
    for (const HttpsRecordInfo& next : next_endpoints_)
      svcb_reliant_ = svcb_reliant_ && !next.ech_config_list.empty();
    addresses_of_ = https.addresses_from_hints ? "" : https.target;
    record_notes_ = https.detail;
  }
  if (connect_failure) connect_error_ = result;
  const std::string failed = absl::StrCat(https.target, ":", connect_port(),
                                          ": ", ErrorToShortString(result));
  endpoint_failures_ = endpoint_failures_.empty()
                           ? failed
                           : absl::StrCat(endpoint_failures_, "; ", failed);
  // RFC 9460 3: the next ServiceMode record, by priority.
  while (!next_endpoints_.empty()) {
    HttpsRecordInfo next = std::move(next_endpoints_.front());
    next_endpoints_.erase(next_endpoints_.begin());
    next.source = https.source;
    next.records = https.records;
    next.compatible_records = https.compatible_records;
    next.alias_chain = https.alias_chain;
    next.wait = https.wait;
    next.detail = absl::StrCat(
        "the endpoint of priority ", next.priority, ", after ",
        endpoint_failures_, record_notes_.empty() ? "" : "; ", record_notes_);
    https = std::move(next);
    timing_.dns_https = https;
    fallback_ = Fallback::kNextRecord;
    address_index_ = 0;
    // Another record with the same target: the addresses at hand.
    next_state_ = https.target == addresses_of_ && !resolved_.addresses.empty()
                      ? STATE_CONNECT
                      : STATE_RESOLVE_HOST;
    return true;
  }
  // Then, SVCB-optional, the origin's own addresses and port, as if there
  // were no record; not SVCB-reliant, nor where the last endpoint was the
  // origin's own anyway.
  if (svcb_reliant_ || (connect_port() == port_ && https.target == host_ &&
                        !https.addresses_from_hints))
    return false;
  https.status = HttpsRecordStatus::kIgnored;
  https.detail =
      absl::StrCat("every endpoint failed (", endpoint_failures_,
                   "); TCP went to the origin's own addresses and port",
                   record_notes_.empty() ? "" : "; ", record_notes_);
  timing_.dns_https = https;
  fallback_ = Fallback::kOrigin;
  next_state_ = STATE_RESOLVE_HOST;
  return true;
}

uint16_t TransportConnectJob::connect_port() const {
  // RFC 9460 7.2: the record's port, when a record applies.
  if (options_.https_record && via_.empty() && fallback_ != Fallback::kOrigin &&
      resolved_.https.used() && resolved_.https.port)
    return *resolved_.https.port;
  return port_;
}

}  // namespace net
