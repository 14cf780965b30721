// Http3Session: HTTP/3 (RFC 9114) on one QUIC connection, on nghttp3 —
// the QuicSession's delegate. nghttp3 does the framing, QPACK (RFC 9204)
// and the request streams' state; this class feeds it what QuicSession
// receives (nghttp3_conn_read_stream) and gives QuicSession what nghttp3
// wants sent (nghttp3_conn_writev_stream). Http3SessionStream is one
// request/response on it; requests multiplex on the connection.
//
// What it enforces:
// - bounded memory: a stream's body waits for its reader and is credited
//   back to QUIC flow control only as the reader takes it, so a stream
//   holds at most the QUIC stream window and the session the connection
//   window, whatever the server sends;
// - QPACK bounded: our SETTINGS say max_field_section_size 256 KB, a
//   dynamic table of at most 16 KB and at most 16 blocked streams (nghttp3
//   holds the server to them: QPACK_DECOMPRESSION_FAILED otherwise), and a
//   response's fields (interim, final and trailers) are counted (name +
//   value + 32, RFC 9114 4.2.2): beyond 256 KB the stream is cancelled and
//   fails ERR_RESPONSE_HEADERS_TOO_BIG, the session goes on;
// - GOAWAY (nghttp3's shutdown callback): no new streams; streams at or
//   above its id were not processed and fail ERR_HTTP3_SERVER_REFUSED_STREAM
//   (retryable); the others finish;
// - stream resets and connection errors map to named errors
//   (Http3ErrorCodeToNetError).
//
// Ownership: the session owns its QuicSession; its owner (Http3SessionPool
// or a test) owns the session and hears on_closed from a posted task, after
// which it may destroy it. Streams are owned by their callers and hold a
// WeakPtr to the session; their callbacks run from posted tasks, never
// from inside nghttp3 or ngtcp2. Network-thread affine.

#ifndef NET_QUIC_HTTP3_SESSION_H_
#define NET_QUIC_HTTP3_SESSION_H_

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/quic/quic_session.h"

namespace net {

class Http3SessionStream;

// A header list: (name, value) in order, names lower-case.
using Http3Headers = std::vector<std::pair<std::string, std::string>>;

struct Http3SessionParams {
  // The origin the connection was made for.
  Origin origin;
  // The response header limit (our SETTINGS_MAX_FIELD_SECTION_SIZE, and
  // what a stream's fields may add up to).
  uint64_t max_field_section_size = 256 * 1024;
  // QPACK: the dynamic table the server's encoder may use, and how many of
  // our streams it may block on it.
  size_t qpack_max_dtable_capacity = 16 * 1024;
  size_t qpack_blocked_streams = 16;
};

// Http3ErrorCodeToNetError maps an HTTP/3 (RFC 9114 8.1) or QPACK
// (RFC 9204 6) error code of a stream reset or a CONNECTION_CLOSE to the
// net error a stream fails with.
int Http3ErrorCodeToNetError(uint64_t code);
// Http3ErrorCodeName: "H3_REQUEST_REJECTED"; "0x..." for unknown codes.
std::string Http3ErrorCodeName(uint64_t code);

class Http3Session : public QuicSession::Delegate {
 public:
  enum class State { kConnecting, kOpen, kGoingAway, kClosed };

  Http3Session(std::unique_ptr<QuicSession> quic, Http3SessionParams params);
  ~Http3Session() override;
  Http3Session(const Http3Session&) = delete;
  Http3Session& operator=(const Http3Session&) = delete;

  // Connect runs the QUIC handshake to |peer| and opens HTTP/3's control
  // and QPACK streams: OK, a named error, or ERR_IO_PENDING. Requests that
  // want the session meanwhile wait with WaitForConnect. When the QUIC
  // session resumes with early data, the session opens at once (Connect returns
  // OK before the handshake completed): replay-safe requests
  // (GET or HEAD without a body, RFC 8470 2.1, the rule TCP's 0-RTT
  // follows) go in 0-RTT; any other waits for the handshake. If the server
  // rejects 0-RTT, the early requests are sent again in 1-RTT on the same
  // connection once the handshake completes.
  int Connect(const IPEndPoint& peer, CompletionOnceCallback callback);
  // |callback| gets Connect's outcome (from a posted task).
  void WaitForConnect(CompletionOnceCallback callback);

  // CreateStream: OK, or ERR_HTTP3_SERVER_REFUSED_STREAM if the session is
  // going away or closed (retryable elsewhere).
  int CreateStream(std::unique_ptr<Http3SessionStream>* stream);

  // Whether a new request may use the session: connected, not going away.
  bool IsAvailable() const { return state_ == State::kOpen; }
  // Open (or going away) with no request on it or waiting for it.
  bool IsIdle() const {
    return (state_ == State::kOpen || state_ == State::kGoingAway ||
            state_ == State::kClosed) &&
           streams_.empty() && waiting_for_stream_id_.empty() &&
           waiting_for_handshake_.empty() && connect_waiters_.empty() &&
           !connect_callback_;
  }
  State state() const { return state_; }
  const Origin& origin() const { return params_.origin; }
  QuicSession* quic() const { return quic_.get(); }
  int error() const { return error_; }
  const std::string& error_detail() const { return error_detail_; }
  bool goaway_received() const { return goaway_received_; }
  int64_t goaway_id() const { return goaway_id_; }
  uint64_t streams_started() const { return streams_started_; }
  size_t open_stream_count() const { return streams_.size(); }
  // Body bytes received and not yet read, and the most there ever was.
  size_t buffered_bytes() const { return buffered_bytes_; }
  size_t max_buffered_bytes() const { return max_buffered_bytes_; }

  // on_closed runs once, from a posted task, after the session closed; on
  // going_away when it stops taking streams.
  void set_on_closed(absl::AnyInvocable<void(Http3Session*)> cb) {
    on_closed_ = std::move(cb);
  }
  void set_on_going_away(absl::AnyInvocable<void(Http3Session*)> cb) {
    on_going_away_ = std::move(cb);
  }

  // A session opened by a preconnect, ahead of any request: the first
  // request that takes a stream on it is told so (once), as a TCP
  // preconnected socket's is.
  void set_preconnected() { preconnected_ = true; }
  bool preconnected() const { return preconnected_; }
  bool TakePreconnected() { return std::exchange(preconnected_, false); }

  WeakPtr<Http3Session> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

  // QuicSession::Delegate:
  int OnHandshakeCompleted() override;
  int OnEarlyDataRejected() override;
  int64_t OnStreamData(int64_t stream_id, const uint8_t* data, size_t len,
                       bool fin) override;
  int OnStreamDataAcked(int64_t stream_id, uint64_t len) override;
  int OnStreamClosed(int64_t stream_id, bool has_error,
                     uint64_t app_error) override;
  int OnStreamReset(int64_t stream_id, uint64_t app_error) override;
  int OnStreamStopSending(int64_t stream_id, uint64_t app_error) override;
  int OnStreamUnblocked(int64_t stream_id) override;
  void OnMoreStreamsAllowed() override;
  int64_t GetStreamData(int64_t* stream_id, bool* fin, ngtcp2_vec* vec,
                        size_t veccnt) override;
  int OnStreamDataWritten(int64_t stream_id, size_t len) override;
  void OnStreamWriteBlocked(int64_t stream_id) override;
  void OnStreamWriteShut(int64_t stream_id) override;
  void OnSessionClosed(int error) override;

 private:
  friend class Http3SessionStream;
  struct ConnDeleter {
    void operator()(nghttp3_conn* c) const { nghttp3_conn_del(c); }
  };

  // nghttp3 callbacks (conn_user_data is the session).
  static int OnAckedStreamData(nghttp3_conn*, int64_t stream_id,
                               uint64_t datalen, void* user_data,
                               void* stream_user_data);
  static int OnH3StreamClose(nghttp3_conn*, int64_t stream_id,
                             uint64_t app_error_code, void* user_data,
                             void* stream_user_data);
  static int OnRecvData(nghttp3_conn*, int64_t stream_id, const uint8_t* data,
                        size_t datalen, void* user_data,
                        void* stream_user_data);
  static int OnDeferredConsume(nghttp3_conn*, int64_t stream_id,
                               size_t consumed, void* user_data,
                               void* stream_user_data);
  static int OnBeginHeaders(nghttp3_conn*, int64_t stream_id, void* user_data,
                            void* stream_user_data);
  static int OnRecvHeader(nghttp3_conn*, int64_t stream_id, int32_t token,
                          nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                          uint8_t flags, void* user_data,
                          void* stream_user_data);
  static int OnEndHeaders(nghttp3_conn*, int64_t stream_id, int fin,
                          void* user_data, void* stream_user_data);
  static int OnEndStream(nghttp3_conn*, int64_t stream_id, void* user_data,
                         void* stream_user_data);
  static int OnStopSending(nghttp3_conn*, int64_t stream_id,
                           uint64_t app_error_code, void* user_data,
                           void* stream_user_data);
  static int OnResetStream(nghttp3_conn*, int64_t stream_id,
                           uint64_t app_error_code, void* user_data,
                           void* stream_user_data);
  static int OnShutdown(nghttp3_conn*, int64_t id, void* user_data);
  static nghttp3_ssize ReadUpload(nghttp3_conn*, int64_t stream_id,
                                  nghttp3_vec* vec, size_t veccnt,
                                  uint32_t* pflags, void* user_data,
                                  void* stream_user_data);

  // For Http3SessionStream.
  int SubmitRequest(Http3SessionStream* stream, const Http3Headers& headers,
                    bool has_body);
  void Unregister(Http3SessionStream* stream);
  void Consume(int64_t stream_id, size_t bytes);
  Http3SessionStream* FindStream(int64_t stream_id);

  void OnConnectDone(int rv);
  // nghttp3 and the control and QPACK streams (once per handshake, again
  // after a 0-RTT rejection).
  int SetUpHttp3();
  // nghttp3 failed with |rv|: close the connection with its inferred code.
  int FailConnection(int rv, const char* what);
  void EnterGoingAway();
  void FailStreams(int error);
  void Closed(int error, const std::string& detail);

  std::unique_ptr<QuicSession> quic_;
  Http3SessionParams params_;
  std::unique_ptr<nghttp3_conn, ConnDeleter> h3_;
  State state_ = State::kConnecting;
  bool preconnected_ = false;
  int error_ = OK;
  std::string error_detail_;
  CompletionOnceCallback connect_callback_;
  std::vector<CompletionOnceCallback> connect_waiters_;

  std::map<int64_t, Http3SessionStream*> streams_;
  // Streams waiting for the server's stream limit to open.
  std::vector<WeakPtr<Http3SessionStream>> waiting_for_stream_id_;
  // Streams waiting for the handshake: not replay-safe while in early
  // data, or sent early and rejected.
  std::vector<WeakPtr<Http3SessionStream>> waiting_for_handshake_;
  uint64_t streams_started_ = 0;
  bool goaway_received_ = false;
  int64_t goaway_id_ = -1;

  size_t buffered_bytes_ = 0;
  size_t max_buffered_bytes_ = 0;

  absl::AnyInvocable<void(Http3Session*)> on_closed_;
  absl::AnyInvocable<void(Http3Session*)> on_going_away_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Http3Session> weak_factory_{this};
};

// Http3SessionStream: one request and its response on an Http3Session.
// SendRequest, then ReadResponseHeaders and ReadBody until 0 or an error.
// Every method follows the async contract; callbacks run from posted
// tasks; at most one call of each kind may be pending. Owned by the
// caller; destroying it cancels the stream (H3_REQUEST_CANCELLED) if it is
// open, and credits its unread body back to flow control. If the session
// goes first, pending and later calls fail with its error.
class Http3SessionStream {
 public:
  ~Http3SessionStream();
  Http3SessionStream(const Http3SessionStream&) = delete;
  Http3SessionStream& operator=(const Http3SessionStream&) = delete;

  // SendRequest submits |headers| (pseudo-headers first) and |body| (kept
  // until acknowledged). OK once the request's last byte was handed to
  // QUIC; ERR_HTTP3_SERVER_REFUSED_STREAM if the session could not take it.
  int SendRequest(const Http3Headers& headers, std::string body,
                  CompletionOnceCallback callback);
  // OK once the final (non-1xx) response headers are in.
  int ReadResponseHeaders(CompletionOnceCallback callback);
  // Body bytes (> 0, at most |len|), 0 at the end, an error, or pending.
  int ReadBody(std::shared_ptr<IOBuffer> buf, int len,
               CompletionOnceCallback callback);

  int64_t stream_id() const { return stream_id_; }
  // Whether the request went (also) in 0-RTT, and whether it was sent again
  // after the server rejected 0-RTT.
  bool sent_early() const { return sent_early_; }
  bool resent_after_rejection() const { return resend_; }
  const Http3Headers& response_headers() const { return response_headers_; }
  int status() const { return status_; }
  size_t buffered_bytes() const { return body_.size() - body_offset_; }
  bool request_sent() const { return request_sent_; }
  bool response_complete() const { return end_stream_received_; }
  int error() const { return error_; }
  const std::string& error_detail() const { return error_detail_; }

 private:
  friend class Http3Session;
  explicit Http3SessionStream(WeakPtr<Http3Session> session);

  // Opens the QUIC stream and submits the request, once the server's
  // stream limit allows.
  void TrySubmit();
  void Poke();
  void RunCallbacks();
  void Fail(int error, const std::string& detail);
  int TakeBody(IOBuffer* buf, int len);

  WeakPtr<Http3Session> session_;
  int64_t stream_id_ = -1;
  bool submitted_ = false;
  bool request_sent_ = false;
  bool response_headers_done_ = false;
  bool end_stream_received_ = false;
  bool closed_ = false;
  int error_ = OK;
  std::string error_detail_;

  Http3Headers request_headers_;
  Http3Headers block_;
  size_t field_section_bytes_ = 0;
  Http3Headers response_headers_;
  int status_ = 0;

  std::string upload_;
  size_t upload_offset_ = 0;
  uint64_t upload_acked_ = 0;

  std::string body_;
  size_t body_offset_ = 0;

  CompletionOnceCallback send_callback_;
  CompletionOnceCallback headers_callback_;
  CompletionOnceCallback body_callback_;
  std::shared_ptr<IOBuffer> body_buf_;
  int body_len_ = 0;
  bool poke_posted_ = false;
  bool sent_early_ = false;
  // 0-RTT was rejected after the request was submitted: submit it again.
  bool resend_ = false;
  WeakPtrFactory<Http3SessionStream> weak_factory_{this};
};

}  // namespace net

#endif  // NET_QUIC_HTTP3_SESSION_H_
