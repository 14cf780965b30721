// Http2Session: the client side of one HTTP/2 connection (RFC 9113), on
// nghttp2's session API driven from our event loop. nghttp2 does the
// framing, HPACK and the stream state machine; this class does the I/O:
// what nghttp2_session_mem_send produces is written to the socket with our
// asynchronous Write, and what the socket's Read returns is fed to
// nghttp2_session_mem_recv. nghttp2 never touches the socket and never
// blocks. Http2SessionStream is one request/response exchange on it.
//
// What the session sends and enforces (Chromium's choices where it has one):
// - SETTINGS first: HEADER_TABLE_SIZE 65536, ENABLE_PUSH 0 (no server push),
//   INITIAL_WINDOW_SIZE 6 MB per stream, MAX_HEADER_LIST_SIZE 256 KB; then a
//   WINDOW_UPDATE that raises the connection window to 15 MB.
// - Flow control is consumed only as the caller reads (nghttp2's automatic
//   WINDOW_UPDATE is off): a stream buffers at most its 6 MB window and the
//   session at most its 15 MB one, whatever the server sends; a server that
//   overruns a window gets FLOW_CONTROL_ERROR from nghttp2.
// - Priorities as Chromium sends them (http2_priority.h): each stream's
//   HEADERS carry its request priority's weight and an exclusive dependency
//   on the newest open stream of the same or a more urgent priority.
// - The ORIGIN frame (RFC 8336) is read: once one arrives, the origins the
//   session may carry are its own plus those the frames list (origin_set(),
//   MayCarry); without one, any (the pool decides by DNS and certificate).
//   An origin the server answered 421 for (NoteMisdirected) is never
//   carried again.
// - Response header lists are bounded (256 KB in all, RFC 9113 accounting:
//   name + value + 32 per field): beyond it the stream is reset and fails
//   ERR_RESPONSE_HEADERS_TOO_BIG. nghttp2 bounds each HPACK field (64 KB)
//   and CONTINUATION frames per block, and acks it queues (PING, SETTINGS
//   floods: ERR_HTTP2_FLOOD_DETECTED).
// - The server's SETTINGS (its connection preface) must come within
//   settings_timeout, else ERR_HTTP2_SETTINGS_TIMEOUT; a PING unanswered
//   within ping_timeout fails the session ERR_HTTP2_PING_FAILED.
// - GOAWAY: no new streams; streams above its last stream id (and those
//   whose HEADERS never left) fail ERR_HTTP2_SERVER_REFUSED_STREAM, which is
//   retryable; with an error code the others fail ERR_HTTP2_GOAWAY_FRAME.
//   GOAWAY HTTP_1_1_REQUIRED fails every stream ERR_HTTP_1_1_REQUIRED (the
//   server wants none of them over HTTP/2). RST_STREAM codes map to named
//   errors (Http2ErrorCodeToNetError).
// - No stream for idle_timeout: GOAWAY NO_ERROR and close.
//
// Ownership: the session owns its socket. Its owner (an Http2SessionPool,
// or a test) owns the session and hears on_closed from a posted task, after
// which it may destroy it. Streams are owned by their callers and hold a
// WeakPtr to the session. Callbacks of streams run from posted tasks,
// never from inside nghttp2's callbacks or a caller's call. Network-thread
// affine.

#ifndef NET_HTTP2_HTTP2_SESSION_H_
#define NET_HTTP2_HTTP2_SESSION_H_

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/base/request_priority.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http2/http2_priority.h"
#include "net/socket/stream_socket.h"

namespace net {

class Http2SessionStream;

// A header list: (name, value) in order, names lower-case.
using Http2Headers = std::vector<std::pair<std::string, std::string>>;

struct Http2SessionParams {
  // The origin the connection was made for.
  Origin origin;
  // The HTTP proxy the connection goes through ("http://host:port"), or ""
  // for a direct one: part of the pool's key, so no request goes over
  // another route's session.
  std::string proxy;
  // SETTINGS we send (Chromium's values).
  uint32_t header_table_size = 64 * 1024;
  int32_t stream_window = 6 * 1024 * 1024;
  int32_t session_window = 15 * 1024 * 1024;
  uint32_t max_header_list_size = 256 * 1024;
  // The server's connection preface (SETTINGS) must arrive within this.
  absl::Duration settings_timeout = absl::Seconds(10);
  // A PING (ours) unanswered this long fails the session.
  absl::Duration ping_timeout = absl::Seconds(10);
  // No stream open for this long: GOAWAY and close.
  absl::Duration idle_timeout = absl::Minutes(5);
  // The most origins ORIGIN frames may add to the origin set; later ones
  // are ignored (origin_frame_entries_ignored()), so a server cannot grow
  // the client's memory without bound.
  size_t max_origin_set = 256;
  // The most origins NoteMisdirected keeps; past it the session carries no
  // other origin at all.
  size_t max_misdirected = 64;
  // Clock for PING round trips. Not owned.
  const TickClock* clock = DefaultTickClock::GetInstance();
};

// Http2ErrorCodeToNetError maps an RFC 9113 error code (RST_STREAM, GOAWAY)
// to the net error a stream fails with.
int Http2ErrorCodeToNetError(uint32_t error_code);
// Http2SettingName: "MAX_CONCURRENT_STREAMS" for 3, "UNKNOWN_0x..." else.
std::string Http2SettingName(int32_t id);
// ParseOriginFrameEntry reads one Origin-Entry of an ORIGIN frame (RFC 8336
// 2.2: an origin's ASCII serialization, "https://host[:port]"): the origin,
// or nullopt for anything else (another scheme, a path, a query, userinfo,
// not a URL), which RFC 8336 says to ignore.
std::optional<Origin> ParseOriginFrameEntry(absl::string_view entry);

class Http2Session {
 public:
  enum class State { kNew, kOpen, kGoingAway, kClosed };

  // |socket| is connected (and its TLS handshake chose h2).
  Http2Session(std::unique_ptr<StreamSocket> socket, Http2SessionParams params);
  ~Http2Session();
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  // Start sends the connection preface and SETTINGS and starts reading.
  void Start();

  // CreateStream makes a stream on this session: OK, or
  // ERR_HTTP2_SERVER_REFUSED_STREAM if the session is going away or closed
  // (retryable on another session).
  int CreateStream(std::unique_ptr<Http2SessionStream>* stream);

  // Ping sends a PING; |callback| gets OK when its ACK arrives (then
  // last_ping_rtt()), or the session's error if it closes first. A PING
  // unanswered within ping_timeout closes the session
  // ERR_HTTP2_PING_FAILED.
  void Ping(CompletionOnceCallback callback);

  // GoAway sends GOAWAY NO_ERROR: open streams finish, no new ones.
  void GoAway();
  // CloseWithError closes now: streams fail with |error| (those whose
  // HEADERS never left with ERR_HTTP2_SERVER_REFUSED_STREAM).
  void CloseWithError(int error, const std::string& detail);

  // Whether a new request may use the session: open, not going away. While
  // the TLS handshake under it is unconfirmed (early data in flight), only
  // for a request that may be replayed (|replay_safe|).
  bool IsAvailable(bool replay_safe = true) const;

  State state() const { return state_; }
  const Origin& origin() const { return params_.origin; }
  const std::string& proxy() const { return params_.proxy; }

  // The ORIGIN frame (RFC 8336). Whether one arrived; the origins they
  // listed (each once, at most max_origin_set); how many were left out
  // (malformed, not https, past the bound).
  bool origin_frame_received() const { return origin_frame_received_; }
  const std::set<Origin>& origin_set() const { return origin_set_; }
  size_t origin_frame_entries_ignored() const {
    return origin_frame_entries_ignored_;
  }
  // Whether the server would have |origin| on this session, as far as the
  // session knows: its own origin always; another one unless the server
  // answered 421 for it here, or sent ORIGIN frames that do not list it.
  // (Whether the certificate covers it, and DNS, are the pool's checks.)
  bool MayCarry(const Origin& origin) const;
  // The server answered 421 Misdirected Request for |origin| on this
  // session: it is not carried here again.
  void NoteMisdirected(const Origin& origin);
  bool WasMisdirected(const Origin& origin) const;
  StreamSocket* socket() const { return socket_.get(); }
  // The session's error once closed (OK before), and what happened.
  int error() const { return error_; }
  const std::string& error_detail() const { return error_detail_; }
  // The server's SETTINGS as received, in order (name, value), each frame
  // appended; empty until the first.
  const std::vector<std::pair<std::string, uint32_t>>& server_settings() const {
    return server_settings_;
  }
  bool settings_received() const { return settings_received_; }
  // GOAWAY from the server: its last stream id and error code.
  bool goaway_received() const { return goaway_received_; }
  int32_t goaway_last_stream_id() const { return goaway_last_stream_id_; }
  uint32_t goaway_error_code() const { return goaway_error_code_; }
  absl::Duration last_ping_rtt() const { return last_ping_rtt_; }
  // Body bytes received and not yet read by any stream's caller (the memory
  // the session holds for them), and the most there ever was.
  size_t buffered_bytes() const { return buffered_bytes_; }
  size_t max_buffered_bytes() const { return max_buffered_bytes_; }
  size_t open_stream_count() const { return streams_.size(); }
  // Streams this session has carried (HEADERS submitted).
  uint64_t streams_started() const { return streams_started_; }

  // on_closed runs once, from a posted task, after the session closed; the
  // owner may destroy it then. on_going_away runs when it stops taking
  // streams (GOAWAY either way, or closing).
  void set_on_closed(absl::AnyInvocable<void(Http2Session*)> cb) {
    on_closed_ = std::move(cb);
  }
  void set_on_going_away(absl::AnyInvocable<void(Http2Session*)> cb) {
    on_going_away_ = std::move(cb);
  }

  WeakPtr<Http2Session> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

 private:
  friend class Http2SessionStream;
  struct NgDeleter {
    void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
  };

  // nghttp2 callbacks (user_data is the session).
  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame,
                            void* user_data);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                      const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t flags, void* user_data);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame,
                         void* user_data);
  static int OnDataChunkRecv(nghttp2_session*, uint8_t flags, int32_t stream_id,
                             const uint8_t* data, size_t len, void* user_data);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id,
                           uint32_t error_code, void* user_data);
  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame,
                         void* user_data);
  static int OnFrameNotSend(nghttp2_session*, const nghttp2_frame* frame,
                            int lib_error_code, void* user_data);
  static int OnError(nghttp2_session*, int lib_error_code, const char* msg,
                     size_t len, void* user_data);
  static ssize_t ReadUpload(nghttp2_session*, int32_t stream_id, uint8_t* buf,
                            size_t length, uint32_t* data_flags,
                            nghttp2_data_source* source, void* user_data);

  // For Http2SessionStream.
  // Submits |stream|'s request; returns its stream id or a net error.
  int32_t SubmitRequest(Http2SessionStream* stream, const Http2Headers& headers,
                        bool has_body);
  // An ORIGIN frame arrived.
  void OnOriginFrame(const nghttp2_extension& ext);
  void Unregister(Http2SessionStream* stream);
  // |stream|'s caller took |bytes| of its body: credit the windows.
  void Consume(int32_t stream_id, size_t bytes);
  Http2SessionStream* FindStream(int32_t stream_id);

  // Writes what nghttp2 has to send, while no write is pending.
  void MaybeWrite();
  void OnWriteDone(int rv);
  void DoRead();
  void OnReadDone(int rv);
  // Feeds |len| received bytes to nghttp2; false if the session closed.
  bool ProcessRead(int len);
  // After nghttp2 ran: a session it terminated (GOAWAY sent, nothing more
  // to read or write) closes.
  void CheckTerminated();
  void OnSettingsTimeout();
  void OnPingTimeout();
  void OnIdleTimeout();
  void UpdateIdleTimer();
  void EnterGoingAway();
  // Fails every stream not done with |error| (refused if never sent).
  void FailStreams(int error);

  std::unique_ptr<StreamSocket> socket_;
  Http2SessionParams params_;
  std::unique_ptr<nghttp2_session, NgDeleter> ng_;
  State state_ = State::kNew;
  int error_ = OK;
  std::string error_detail_;
  // The last error nghttp2 reported through its error callback.
  std::string nghttp2_detail_;
  // The GOAWAY we sent (nghttp2 or GoAway()): its error code.
  bool goaway_sent_ = false;
  uint32_t goaway_sent_code_ = 0;

  std::map<int32_t, Http2SessionStream*> streams_;
  // Streams submitted, not yet given an id by nghttp2's return (during
  // nghttp2_submit_request).
  Http2SessionStream* submitting_ = nullptr;
  // Open streams by priority and age, for Chromium's dependency chain.
  Http2PriorityDependencies priorities_;
  uint64_t streams_started_ = 0;

  std::shared_ptr<IOBuffer> read_buf_;
  bool read_pending_ = false;
  bool read_posted_ = false;
  std::shared_ptr<DrainableIOBuffer> write_buf_;
  bool write_pending_ = false;
  bool in_nghttp2_ = false;

  bool settings_received_ = false;
  std::vector<std::pair<std::string, uint32_t>> server_settings_;
  bool goaway_received_ = false;
  int32_t goaway_last_stream_id_ = 0;
  uint32_t goaway_error_code_ = 0;

  bool origin_frame_received_ = false;
  std::set<Origin> origin_set_;
  size_t origin_frame_entries_ignored_ = 0;
  std::set<Origin> misdirected_;
  // More 421s than max_misdirected: no other origin any more.
  bool misdirected_overflow_ = false;

  std::vector<CompletionOnceCallback> ping_callbacks_;
  TimeTicks ping_sent_;
  absl::Duration last_ping_rtt_ = absl::ZeroDuration();

  size_t buffered_bytes_ = 0;
  size_t max_buffered_bytes_ = 0;

  OneShotTimer settings_timer_;
  OneShotTimer ping_timer_;
  OneShotTimer idle_timer_;

  absl::AnyInvocable<void(Http2Session*)> on_closed_;
  absl::AnyInvocable<void(Http2Session*)> on_going_away_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Http2Session> weak_factory_{this};
};

// Http2SessionStream: one request and its response on an Http2Session.
// SendRequest, then ReadResponseHeaders and ReadBody until 0 or an error.
// Every method follows the async contract (net/base/net_errors.h); the
// callback runs from a posted task. At most one call of each kind may be
// pending. Owned by the caller; destroying it resets the stream (CANCEL) if
// it is open, and hands its unread body back to the connection's window.
// If the session goes first, pending and later calls fail with its error.
class Http2SessionStream {
 public:
  ~Http2SessionStream();
  Http2SessionStream(const Http2SessionStream&) = delete;
  Http2SessionStream& operator=(const Http2SessionStream&) = delete;

  // The request's priority (HIGHEST unless set): its HEADERS' weight and
  // dependency (http2_priority.h). Before SendRequest.
  void set_priority(RequestPriority priority) { priority_ = priority; }
  RequestPriority priority() const { return priority_; }
  // What the HEADERS frame said of the stream's priority (after
  // SendRequest).
  const Http2StreamPriority& sent_priority() const { return sent_priority_; }

  // SendRequest submits |headers| (pseudo-headers first, names lower-case)
  // and |body| (kept until sent). OK once the request is on the wire (its
  // last frame written), or an error.
  int SendRequest(const Http2Headers& headers, std::string body,
                  CompletionOnceCallback callback);
  // OK once the final (non-1xx) response headers are in: response_headers()
  // and status().
  int ReadResponseHeaders(CompletionOnceCallback callback);
  // Body bytes (> 0, at most |len|), 0 at the end, an error, or pending.
  int ReadBody(std::shared_ptr<IOBuffer> buf, int len,
               CompletionOnceCallback callback);

  int32_t stream_id() const { return stream_id_; }
  const Http2Headers& response_headers() const { return response_headers_; }
  int status() const { return status_; }
  // Body bytes waiting for ReadBody.
  size_t buffered_bytes() const { return body_.size() - body_offset_; }
  // Whether the stream's HEADERS went on the wire.
  bool headers_sent() const { return headers_sent_; }
  bool response_complete() const { return end_stream_received_; }
  // Why it failed (OK if it did not).
  int error() const { return error_; }

 private:
  friend class Http2Session;
  explicit Http2SessionStream(WeakPtr<Http2Session> session);

  // Runs whatever pending callback can now complete, from a posted task.
  void Poke();
  void RunCallbacks();
  // The stream failed (first error wins) or closed.
  void Fail(int error);
  int TakeBody(IOBuffer* buf, int len);

  WeakPtr<Http2Session> session_;
  int32_t stream_id_ = 0;
  RequestPriority priority_ = HIGHEST;
  Http2StreamPriority sent_priority_;
  bool headers_sent_ = false;
  bool request_sent_ = false;
  bool response_headers_done_ = false;
  bool end_stream_received_ = false;
  bool closed_ = false;
  int error_ = OK;

  // The header block being received, and its size by RFC 9113's rule.
  Http2Headers block_;
  size_t header_list_bytes_ = 0;
  Http2Headers response_headers_;
  int status_ = 0;

  std::string upload_;
  size_t upload_offset_ = 0;

  std::string body_;
  size_t body_offset_ = 0;

  CompletionOnceCallback send_callback_;
  CompletionOnceCallback headers_callback_;
  CompletionOnceCallback body_callback_;
  std::shared_ptr<IOBuffer> body_buf_;
  int body_len_ = 0;
  bool poke_posted_ = false;
  WeakPtrFactory<Http2SessionStream> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP2_HTTP2_SESSION_H_
