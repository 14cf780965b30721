#include "net/url_request/url_request.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "net/base/check.h"
#include "net/base/event_loop.h"
#include "net/http/cookie_jar.h"
#include "net/url_request/content_decoder.h"

namespace net {
namespace {

// Encoded bytes read from the transaction at a time when decoding, and
// redirect-body bytes when draining.
constexpr int kEncodedBufferSize = 16 * 1024;

bool HasHeader(const HttpHeaderList& headers, absl::string_view name) {
  for (const auto& header : headers) {
    if (absl::EqualsIgnoreCase(header.first, name)) return true;
  }
  return false;
}

}  // namespace

URLRequest::URLRequest(const URLRequestContext* context, const Url& url,
                       Delegate* delegate, Options options)
    : context_(context), delegate_(delegate), options_(options) {
  url_chain_.push_back(url);
}

URLRequest::~URLRequest() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The transaction and a refresh wait first: their callbacks point here.
  transaction_.reset();
  dbsc_deferral_.reset();
}

CompletionOnceCallback URLRequest::IOCallback() {
  return [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->RunLoop(rv);
  };
}

void URLRequest::Start() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(!started_);
  if (started_) return;
  started_ = true;
  status_ = ERR_IO_PENDING;
  // From a task: the delegate must never hear from inside Start().
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->next_state_ = STATE_START_HOP;
    weak->RunLoop(OK);
  });
}

void URLRequest::FollowDeferredRedirect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // From inside OnReceivedRedirect: noted, acted on when it returns.
  if (notifying_redirect_) {
    follow_requested_ = true;
    return;
  }
  if (!redirect_deferred_) return;
  redirect_deferred_ = false;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->next_state_ = STATE_DRAIN_REDIRECT_BODY;
    weak->RunLoop(OK);
  });
}

void URLRequest::Cancel() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (status_ != ERR_IO_PENDING && started_) return;  // already ended
  // Pending callbacks and tasks of this request never run now.
  weak_factory_.InvalidateWeakPtrs();
  if (transaction_) {
    if (const HttpResponseHeaders* headers = transaction_->response_headers())
      cancelled_headers_ = *headers;
    cancelled_timing_ = transaction_->load_timing();
    transaction_.reset();  // closes its connection
  }
  dbsc_deferral_.reset();
  next_state_ = STATE_NONE;
  redirect_deferred_ = false;
  read_buf_.reset();
  started_ = true;
  Fail(ERR_ABORTED, "the request was cancelled");
}

void URLRequest::RunLoop(int result) {
  // Every pass ends either waiting for I/O, at a redirect the delegate is
  // asked about, or at the response's start (or failure).
  for (;;) {
    int rv = DoLoop(result);
    if (rv == ERR_IO_PENDING) return;
    if (next_state_ == STATE_NOTIFY_REDIRECT) {
      next_state_ = STATE_NONE;
      bool defer = false;
      WeakPtr<URLRequest> weak = weak_factory_.GetWeakPtr();
      notifying_redirect_ = true;
      follow_requested_ = false;
      delegate_->OnReceivedRedirect(this, *redirect_info_, &defer);
      if (!weak) return;  // cancelled or destroyed
      notifying_redirect_ = false;
      if (defer && !follow_requested_) {
        redirect_deferred_ = true;
        return;
      }
      next_state_ = STATE_DRAIN_REDIRECT_BODY;
      result = OK;
      continue;
    }
    if (rv < 0)
      Fail(rv, transaction_ && error_detail_.empty()
                   ? transaction_->error_detail()
                   : error_detail_);
    delegate_->OnResponseStarted(this, rv);
    return;  // the delegate may have destroyed the request
  }
}

int URLRequest::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_START_HOP:
        rv = DoStartHop();
        break;
      case STATE_START_HOP_COMPLETE:
        rv = DoStartHopComplete(rv);
        break;
      case STATE_DRAIN_REDIRECT_BODY:
        rv = DoDrainRedirectBody();
        break;
      case STATE_DRAIN_REDIRECT_BODY_COMPLETE:
        rv = DoDrainRedirectBodyComplete(rv);
        break;
      case STATE_FOLLOW_REDIRECT:
        rv = DoFollowRedirect();
        break;
      default:
        NET_DCHECK(false);  // no other state runs here
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE &&
           next_state_ != STATE_NOTIFY_REDIRECT);
  return rv;
}

int URLRequest::DoStartHop() {
  // DBSC (draft "Changes to the Fetch specification"): a session whose
  // bound cookie this hop lacks is refreshed first; the hop then starts
  // again here, and its cookies are read after the refresh stored new ones.
  // A caller's own Cookie header leaves the jar, and DBSC, out.
  DeviceBoundSessionDelegate* dbsc = context_->device_bound_sessions;
  if (dbsc && context_->cookie_jar && !HasHeader(extra_headers_, "cookie")) {
    dbsc_deferral_.reset();
    int rv =
        dbsc->MaybeDeferRequest(url(), original_url().GetOrigin(), &dbsc_state_,
                                IOCallback(), &dbsc_deferral_);
    if (rv == ERR_IO_PENDING) {
      next_state_ = STATE_START_HOP;
      return rv;
    }
    dbsc_deferral_.reset();
  }
  HttpRequestInfo request;
  request.url = url();
  request.method = method_;
  request.upload_body = upload_body_;
  request.extra_headers = extra_headers_;
  request.priority = options_.priority;
  if (options_.decode_content && !HasHeader(extra_headers_, "accept-encoding"))
    request.extra_headers.emplace_back("Accept-Encoding",
                                       kAcceptEncodingDecoded);
  // RFC 6265 5.4: one Cookie header; the caller's own wins over the jar's.
  cookie_header_.clear();
  rejected_cookies_.clear();
  request_headers_.clear();
  if (context_->cookie_jar && !HasHeader(extra_headers_, "cookie")) {
    cookie_header_ = context_->cookie_jar->CookieHeaderFor(url(), absl::Now());
    if (!cookie_header_.empty())
      request.extra_headers.emplace_back("Cookie", cookie_header_);
  }
  // A refresh that failed or was skipped tells the server why the bound
  // cookie is missing (draft "Add debug header"), on this hop only.
  if (!dbsc_state_.skipped.empty()) {
    request.extra_headers.emplace_back(
        "Secure-Session-Skipped", absl::StrJoin(dbsc_state_.skipped, ", "));
    dbsc_state_.skipped.clear();
  }
  transaction_ =
      std::make_unique<HttpNetworkTransaction>(context_->http_session);
  next_state_ = STATE_START_HOP_COMPLETE;
  return transaction_->Start(request, IOCallback());
}

int URLRequest::DoStartHopComplete(int result) {
  request_headers_ = transaction_->request_headers_sent();
  if (result != OK) {
    transaction_->mutable_load_timing()->dbsc = dbsc_state_.trace;
    return result;
  }
  SaveCookies();
  const HttpResponseHeaders& headers = *transaction_->response_headers();
  if (DeviceBoundSessionDelegate* dbsc = context_->device_bound_sessions) {
    if (context_->cookie_jar)
      dbsc->OnResponseHeaders(url(), original_url().GetOrigin(), headers,
                              &dbsc_state_);
  }
  transaction_->mutable_load_timing()->dbsc = dbsc_state_.trace;
  redirect_info_.reset();
  std::optional<std::string> location = headers.GetHeader("location");
  if (IsRedirectStatus(headers.status_code()) && location) {
    Url target;
    std::string detail;
    int rv = ResolveRedirectLocation(url(), *location, &target, &detail);
    if (rv == OK) {
      redirect_info_ =
          RedirectInfo::Compute(url(), method_, headers.status_code(), target);
    }
    if (options_.follow_redirects) {
      if (rv != OK) {
        error_detail_ = std::move(detail);
        return rv;
      }
      if (redirect_count() >= options_.max_redirects) {
        error_detail_ =
            absl::StrCat("maximum (", options_.max_redirects,
                         ") redirects followed; next: ", target.spec());
        return ERR_TOO_MANY_REDIRECTS;
      }
      next_state_ = STATE_NOTIFY_REDIRECT;
      return OK;
    }
  }
  return PrepareBody();
}

int URLRequest::DoDrainRedirectBody() {
  if (!drain_buf_) drain_buf_ = std::make_shared<IOBuffer>(kEncodedBufferSize);
  next_state_ = STATE_DRAIN_REDIRECT_BODY_COMPLETE;
  return transaction_->Read(drain_buf_, kEncodedBufferSize, IOCallback());
}

int URLRequest::DoDrainRedirectBodyComplete(int result) {
  // A redirect's body that fails to arrive fails the request, as curl does:
  // the server broke its own framing.
  if (result < 0) return result;
  if (result > 0) {
    drained_bytes_ += result;
    next_state_ = drained_bytes_ > kMaxRedirectBodyDrain
                      ? STATE_FOLLOW_REDIRECT
                      : STATE_DRAIN_REDIRECT_BODY;
    return OK;
  }
  next_state_ = STATE_FOLLOW_REDIRECT;
  return OK;
}

int URLRequest::DoFollowRedirect() {
  URLRequestHop hop;
  hop.url = url();
  hop.method = method_;
  hop.upload_body_sent = !upload_body_.empty();
  hop.request_headers = std::move(request_headers_);
  hop.cookie_header = std::move(cookie_header_);
  hop.rejected_cookies = std::move(rejected_cookies_);
  hop.response_headers = *transaction_->response_headers();
  hop.timing = transaction_->load_timing();
  hops_.push_back(std::move(hop));
  // A body drained to its end left the connection in the idle pool for the
  // next hop; one too long to drain goes with the transaction.
  transaction_.reset();
  drain_buf_.reset();
  drained_bytes_ = 0;
  // The next hop's DBSC facts are its own.
  dbsc_state_.trace = DbscTrace();

  const RedirectInfo info = *std::move(redirect_info_);
  redirect_info_.reset();
  info.UpdateRequest(&extra_headers_, &upload_body_);
  method_ = info.new_method;
  url_chain_.push_back(info.new_url);
  next_state_ = STATE_START_HOP;
  return OK;
}

int URLRequest::PrepareBody() {
  const HttpResponseHeaders& headers = *transaction_->response_headers();
  std::optional<std::vector<ContentCoding>> codings;
  if (options_.decode_content) {
    std::optional<std::string> encoding = headers.GetHeader("content-encoding");
    if (encoding) codings = ParseContentEncoding(*encoding);
    if (codings && codings->empty()) codings.reset();
  }
  // Without decoding, a body announced larger than the limit fails before
  // any of it is read (curl's --max-filesize does the same).
  if (!codings && options_.max_body_bytes >= 0 &&
      headers.content_length() > options_.max_body_bytes) {
    error_detail_ =
        absl::StrCat("the body (Content-Length ", headers.content_length(),
                     ") exceeds the ", options_.max_body_bytes, "-byte limit");
    return ERR_FILE_TOO_BIG;
  }
  if (codings) {
    decoder_ = std::make_unique<ContentDecoderChain>(*codings);
    encoded_buf_ = std::make_shared<IOBuffer>(kEncodedBufferSize);
  }
  return OK;
}

void URLRequest::SaveCookies() {
  CookieJar* jar = context_->cookie_jar;
  if (!jar) return;
  const absl::Time now = absl::Now();
  for (const auto& [name, value] :
       transaction_->response_headers()->headers()) {
    if (!absl::EqualsIgnoreCase(name, "set-cookie")) continue;
    absl::Status status = jar->SetCookie(url(), value, now);
    if (!status.ok()) rejected_cookies_.emplace_back(status.message());
  }
}

int URLRequest::Read(std::shared_ptr<IOBuffer> buf, int len) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(!read_buf_);  // one Read at a time
  if (!started_) return ERR_UNEXPECTED;
  if (status_ != ERR_IO_PENDING) return status_ == OK ? 0 : status_;
  if (!transaction_ || !transaction_->response_headers() ||
      next_state_ != STATE_NONE || redirect_deferred_ || read_buf_)
    return ERR_UNEXPECTED;
  if (body_complete_) return 0;
  read_buf_ = std::move(buf);
  read_len_ = len;
  int rv = ReadLoop();
  if (rv != ERR_IO_PENDING) read_buf_.reset();
  return rv;
}

int URLRequest::ReadLoop() {
  for (;;) {
    if (!decoder_) {
      int rv = transaction_->Read(read_buf_, read_len_,
                                  [weak = weak_factory_.GetWeakPtr()](int rv) {
                                    if (weak) weak->OnTransactionRead(rv);
                                  });
      if (rv == ERR_IO_PENDING) return rv;
      return FinishRead(rv);
    }
    int decoded = decoder_->Decode(&encoded_pending_, read_buf_->data(),
                                   static_cast<size_t>(read_len_));
    if (decoded < 0) error_detail_ = decoder_->error_detail();
    if (decoded != 0) return FinishRead(decoded);
    if (encoded_eof_) {
      // No body at all (HEAD, 204, 304, or simply empty) is an empty body,
      // whatever the Content-Encoding says.
      if (encoded_bytes_ == 0) return FinishRead(0);
      int rv = decoder_->Finish();
      if (rv != OK) error_detail_ = decoder_->error_detail();
      return FinishRead(rv);
    }
    int rv = transaction_->Read(encoded_buf_, kEncodedBufferSize,
                                [weak = weak_factory_.GetWeakPtr()](int rv) {
                                  if (weak) weak->OnTransactionRead(rv);
                                });
    if (rv == ERR_IO_PENDING) return rv;
    rv = TakeEncoded(rv);
    if (rv != OK) return FinishRead(rv);
  }
}

void URLRequest::OnTransactionRead(int result) {
  int rv;
  if (!decoder_) {
    rv = FinishRead(result);
  } else {
    rv = TakeEncoded(result);
    rv = rv != OK ? FinishRead(rv) : ReadLoop();
  }
  if (rv == ERR_IO_PENDING) return;
  read_buf_.reset();
  delegate_->OnReadCompleted(this, rv);
}

int URLRequest::TakeEncoded(int result) {
  if (result < 0) return result;
  if (result == 0) {
    encoded_eof_ = true;
  } else {
    encoded_pending_ = absl::string_view(encoded_buf_->data(), result);
    encoded_bytes_ += result;
  }
  return OK;
}

int URLRequest::FinishRead(int result) {
  if (result > 0) {
    body_bytes_read_ += result;
    if (options_.max_body_bytes >= 0 &&
        body_bytes_read_ > options_.max_body_bytes) {
      Fail(ERR_FILE_TOO_BIG,
           decoder_
               ? absl::StrCat("the decoded body exceeds the ",
                              options_.max_body_bytes, "-byte limit (",
                              received_body_bytes(), " encoded bytes received)")
               : absl::StrCat("the body exceeds the ", options_.max_body_bytes,
                              "-byte limit"));
      return ERR_FILE_TOO_BIG;
    }
    return result;
  }
  if (result == 0) {
    body_complete_ = true;
    status_ = OK;
    NotifyCompleted();
    return 0;
  }
  Fail(result,
       error_detail_.empty() ? transaction_->error_detail() : error_detail_);
  return result;
}

void URLRequest::Fail(int error, std::string detail) {
  NET_DCHECK(error < 0);
  if (status_ < 0 && status_ != ERR_IO_PENDING) return;  // failed already
  status_ = error;
  error_detail_ = std::move(detail);
  NotifyCompleted();
}

void URLRequest::NotifyCompleted() {
  if (context_->network_delegate)
    context_->network_delegate->OnCompleted(this, status_);
}

const HttpResponseHeaders* URLRequest::response_headers() const {
  if (transaction_) return transaction_->response_headers();
  return cancelled_headers_ ? &*cancelled_headers_ : nullptr;
}

const LoadTiming& URLRequest::load_timing() const {
  return transaction_ ? transaction_->load_timing() : cancelled_timing_;
}

int64_t URLRequest::received_body_bytes() const {
  return load_timing().body_bytes;
}

}  // namespace net
