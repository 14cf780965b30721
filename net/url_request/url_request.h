// URLRequest: one fetch of a URL as a browser makes it, above
// HttpNetworkTransaction (Chromium's net/url_request/url_request.h in
// spirit). Where a transaction is one HTTP exchange, a URLRequest is the
// whole load:
//
//  - redirects (301, 302, 303, 307, 308) followed with RFC 9110's method
//    rules and a browser's header rules (RedirectInfo), at most
//    Options::max_redirects of them (ERR_TOO_MANY_REDIRECTS), never to a
//    scheme other than http(s) (ERR_UNSAFE_REDIRECT) or to a Location that
//    is no URL (ERR_INVALID_REDIRECT); the delegate may defer each one;
//  - cookies: every hop sends the jar's Cookie header for its URL (unless
//    the caller set one) and stores its response's Set-Cookie headers, a
//    redirect's included;
//  - device bound sessions (when the context has them): a hop in the scope
//    of a session whose short-lived bound cookie is missing waits until the
//    session's refresh ended, then goes with the fresh cookie; a response's
//    Secure-Session-Registration starts a registration beside the request;
//  - content decoding (gzip, deflate, br) when the caller asks, streamed;
//  - a bound on the body (decoded bytes when decoding): ERR_FILE_TOO_BIG;
//  - what happened at each hop: its URL, the request headers actually sent,
//    the cookies, the response head and the LoadTiming (one trace entry per
//    hop).
//
// Asynchronous in Chromium's manner. Start() and FollowDeferredRedirect()
// return at once and the Delegate hears the outcome later: OnReceivedRedirect
// per redirect, then OnResponseStarted once (the final response's head, or
// the failure). Read() returns bytes, 0 at the end of the body, an error, or
// ERR_IO_PENDING, and then OnReadCompleted runs once. The delegate is never
// called from inside a URLRequest method, and may delete the request from
// any of its callbacks.
//
// Ownership: whoever creates the request (NetworkContext::CreateRequest, or
// directly over a URLRequestContext) owns it. The context, and everything it
// points to, and the delegate must outlive it. Destroying the request, or
// Cancel(), stops it: no delegate method runs afterwards. Network-thread
// affine.

#ifndef NET_URL_REQUEST_URL_REQUEST_H_
#define NET_URL_REQUEST_URL_REQUEST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/base/io_buffer.h"
#include "net/base/request_priority.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_network_transaction.h"
#include "net/http/http_response_headers.h"
#include "net/timing/load_timing.h"
#include "net/url_request/device_bound_session_delegate.h"
#include "net/url_request/redirect_info.h"
#include "net/url_request/url_request_context.h"

namespace net {

class ContentDecoderChain;

using HttpHeaderList = std::vector<std::pair<std::string, std::string>>;

// URLRequestHop: one request-response exchange of a URLRequest that ended
// in a redirect the request followed.
struct URLRequestHop {
  Url url;
  std::string method;
  // The request carried the upload body.
  bool upload_body_sent = false;
  // Every request header as it went on the wire (HttpStream's own included).
  HttpHeaderList request_headers;
  // The Cookie header the jar supplied ("" if none).
  std::string cookie_header;
  // Why each Set-Cookie header of the response was ignored.
  std::vector<std::string> rejected_cookies;
  HttpResponseHeaders response_headers;
  LoadTiming timing;
};

class URLRequest {
 public:
  // Chromium's limit: past it, ERR_TOO_MANY_REDIRECTS.
  static constexpr int kDefaultMaxRedirects = 20;
  // A redirect's body is read and dropped so that its connection can carry
  // the next hop; past this many bytes the connection is closed instead.
  static constexpr int64_t kMaxRedirectBodyDrain = 1 << 20;

  class Delegate {
   public:
    virtual ~Delegate() = default;
    // OnReceivedRedirect: the response is a redirect the request may follow
    // (already checked against the limit and the scheme rules); url() and
    // response_headers() are still the redirect's. Setting
    // |*defer_redirect| makes the request wait for FollowDeferredRedirect()
    // or Cancel(). By default the redirect is followed.
    virtual void OnReceivedRedirect(URLRequest* request,
                                    const RedirectInfo& redirect_info,
                                    bool* defer_redirect) {}
    // OnResponseStarted: OK and the final response's head is in
    // (response_headers(); read the body with Read()), or the request failed
    // with |net_error| (error_detail() says why). Runs once per Start().
    virtual void OnResponseStarted(URLRequest* request, int net_error) = 0;
    // OnReadCompleted: a Read() that returned ERR_IO_PENDING finished:
    // bytes, 0 at the end of the body, or a net error.
    virtual void OnReadCompleted(URLRequest* request, int bytes_read) = 0;
  };

  struct Options {
    // Off: a redirect response is the final response (its body is read like
    // any other; redirect_info() says where it pointed), as with curl
    // without -L.
    bool follow_redirects = true;
    int max_redirects = kDefaultMaxRedirects;
    // The most body bytes Read() hands out (decoded bytes when decoding);
    // more is ERR_FILE_TOO_BIG, and so is a Content-Length above it when
    // the body is not decoded. -1: no limit.
    int64_t max_body_bytes = -1;
    // Send Accept-Encoding: gzip, deflate, br (unless the caller set an
    // Accept-Encoding) and decode what the final response's
    // Content-Encoding names. Off: the body is handed out as it came.
    bool decode_content = false;
    // A navigation (the user asked for this URL), as against a subresource
    // or a fetch the stack makes for itself: the network delegate may count
    // it as a visit.
    bool navigation = false;
    // Every hop's priority (HttpRequestInfo::priority): HIGHEST, as for a
    // navigation, unless the caller says otherwise. Over HTTP/2 it sets the
    // stream's weight and dependency and the RFC 9218 "priority" header.
    RequestPriority priority = HIGHEST;
  };

  // |context| and |delegate| are not owned and must outlive the request.
  URLRequest(const URLRequestContext* context, const Url& url,
             Delegate* delegate, Options options);
  ~URLRequest();
  URLRequest(const URLRequest&) = delete;
  URLRequest& operator=(const URLRequest&) = delete;

  // Before Start(): the method (GET by default), an upload body (sent with
  // Content-Length), and extra request headers, sent after Host and the
  // stack's defaults (a User-Agent, Accept or Connection here replaces
  // ours; a Cookie here replaces the jar's).
  void set_method(std::string method) { method_ = std::move(method); }
  void set_upload_body(std::string body) { upload_body_ = std::move(body); }
  void SetExtraRequestHeaders(HttpHeaderList headers) {
    extra_headers_ = std::move(headers);
  }
  void AddExtraRequestHeader(std::string name, std::string value) {
    extra_headers_.emplace_back(std::move(name), std::move(value));
  }
  // The caller's headers, as the redirects so far left them.
  const HttpHeaderList& extra_request_headers() const { return extra_headers_; }

  // Start begins the load; the delegate hears of it (see the top). Once.
  void Start();
  // Read reads the final response's body into |buf|: bytes (at most |len|),
  // 0 at its end, a net error, or ERR_IO_PENDING and OnReadCompleted later.
  // Only after OnResponseStarted(OK), one Read at a time. |buf| is kept
  // alive until the read completes.
  int Read(std::shared_ptr<IOBuffer> buf, int len);
  // FollowDeferredRedirect follows the redirect OnReceivedRedirect deferred
  // (also when called from inside OnReceivedRedirect). No-op otherwise.
  void FollowDeferredRedirect();
  // Cancel stops the request wherever it is (ERR_ABORTED): its connection
  // is closed, Read() returns ERR_ABORTED, and the delegate hears nothing
  // more. What happened so far (url_chain(), hops(), load_timing(),
  // response_headers()) stays readable. No-op once the request has ended.
  void Cancel();

  // ERR_IO_PENDING from Start() until the body has been read to its end
  // (OK) or the request failed or was cancelled (the error).
  int status() const { return status_; }
  const Options& options() const { return options_; }
  // The URL of the current hop: the final URL once the response started.
  const Url& url() const { return url_chain_.back(); }
  const Url& original_url() const { return url_chain_.front(); }
  // Every URL the request went to, the original first.
  const std::vector<Url>& url_chain() const { return url_chain_; }
  // The current hop's method (a redirect may have changed it).
  const std::string& method() const { return method_; }
  // Whether the current hop carried the upload body.
  bool upload_body_sent() const { return !upload_body_.empty(); }
  const std::string& upload_body() const { return upload_body_; }
  // The redirects followed, in order.
  const std::vector<URLRequestHop>& hops() const { return hops_; }
  int redirect_count() const { return static_cast<int>(hops_.size()); }
  // The current hop's response head (null before it is in), its trace, the
  // request headers as sent, the jar's Cookie header and the Set-Cookie
  // headers it ignored.
  const HttpResponseHeaders* response_headers() const;
  const LoadTiming& load_timing() const;
  const HttpHeaderList& request_headers() const { return request_headers_; }
  const std::string& cookie_header_sent() const { return cookie_header_; }
  const std::vector<std::string>& rejected_cookies() const {
    return rejected_cookies_;
  }
  // With follow_redirects off, where the final response redirected to
  // (nullopt if it is no redirect, or its Location is no http(s) URL).
  const std::optional<RedirectInfo>& redirect_info() const {
    return redirect_info_;
  }
  // The final response's body as received and as handed out (different
  // when decoding).
  int64_t received_body_bytes() const;
  int64_t body_bytes_read() const { return body_bytes_read_; }
  // What went wrong, in words, when status() is an error.
  const std::string& error_detail() const { return error_detail_; }

 private:
  enum State {
    STATE_NONE,
    STATE_START_HOP,
    STATE_START_HOP_COMPLETE,
    // Not run by DoLoop: the loop stops there and the delegate is told.
    STATE_NOTIFY_REDIRECT,
    STATE_DRAIN_REDIRECT_BODY,
    STATE_DRAIN_REDIRECT_BODY_COMPLETE,
    STATE_FOLLOW_REDIRECT,
  };

  void RunLoop(int result);
  int DoLoop(int result);
  int DoStartHop();
  int DoStartHopComplete(int result);
  int DoDrainRedirectBody();
  int DoDrainRedirectBodyComplete(int result);
  int DoFollowRedirect();
  // The final response's head is in: the body limit's early check and the
  // decoder. OK or ERR_FILE_TOO_BIG.
  int PrepareBody();
  // Stores the response's Set-Cookie headers in the jar.
  void SaveCookies();
  // Reads the body until a result for the caller (see Read()).
  int ReadLoop();
  void OnTransactionRead(int result);
  // Takes a transaction Read result into the decoder's input: OK, or the
  // error.
  int TakeEncoded(int result);
  // Accounts a result about to go to the caller: the limit, the end.
  int FinishRead(int result);
  // The request failed with |error| (< 0): status, detail, the network
  // delegate.
  void Fail(int error, std::string detail);
  void NotifyCompleted();
  CompletionOnceCallback IOCallback();

  const URLRequestContext* const context_;
  Delegate* const delegate_;
  const Options options_;
  std::vector<Url> url_chain_;
  std::string method_ = "GET";
  std::string upload_body_;
  HttpHeaderList extra_headers_;

  State next_state_ = STATE_NONE;
  int status_ = OK;
  bool started_ = false;
  std::string error_detail_;
  std::unique_ptr<HttpNetworkTransaction> transaction_;
  std::vector<URLRequestHop> hops_;
  // The current hop.
  HttpHeaderList request_headers_;
  std::string cookie_header_;
  std::vector<std::string> rejected_cookies_;
  // The redirect being followed (or, with follow_redirects off, the final
  // response's).
  std::optional<RedirectInfo> redirect_info_;
  bool redirect_deferred_ = false;
  // Inside OnReceivedRedirect, and whether FollowDeferredRedirect() was
  // called there.
  bool notifying_redirect_ = false;
  bool follow_requested_ = false;
  std::shared_ptr<IOBuffer> drain_buf_;
  int64_t drained_bytes_ = 0;
  // Device bound sessions: what this request carries across hops, and its
  // wait for a refresh (destroyed first: it points at dbsc_state_).
  DeviceBoundSessionRequestState dbsc_state_;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> dbsc_deferral_;
  // Kept when Cancel() drops the transaction.
  std::optional<HttpResponseHeaders> cancelled_headers_;
  LoadTiming cancelled_timing_;

  // The body.
  std::unique_ptr<ContentDecoderChain> decoder_;
  std::shared_ptr<IOBuffer> encoded_buf_;
  absl::string_view encoded_pending_;
  bool encoded_eof_ = false;
  int64_t encoded_bytes_ = 0;
  bool body_complete_ = false;
  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  int64_t body_bytes_read_ = 0;

  ThreadChecker thread_checker_;
  WeakPtrFactory<URLRequest> weak_factory_{this};
};

}  // namespace net

#endif  // NET_URL_REQUEST_URL_REQUEST_H_
