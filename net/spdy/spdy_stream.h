// SpdyStream: one request/response exchange on a SpdySession, in the shape
// of Chromium's SpdyStream + SpdyHttpStream: SendRequest, then
// ReadResponseHeaders and ReadBody.
//
// Every method follows the async contract of net/base/net_errors.h: a
// result, or ERR_IO_PENDING and the callback runs exactly once later, from
// the event loop, never from inside the call. At most one call of each kind
// (send, read headers, read body) may be pending. ReadResponseHeaders and
// ReadBody may be called while SendRequest is still pending (a server may
// answer before the request body is through).
//
// SendRequest is a DoLoop that waits on the session twice: for a
// concurrency slot (SETTINGS_MAX_CONCURRENT_STREAMS; streams beyond it
// queue by priority) and, per DATA frame, for send window
// (WINDOW_UPDATE). Its stream id is given when its SYN_STREAM is written,
// so ids go out in increasing order whatever the priorities.
//
// Owned by the caller. Destroying it cancels it: a stream on the wire is
// reset with CANCEL, a waiting one leaves the queue, and no callback runs.
// The session may go first: the stream then fails (ERR_ABORTED if the
// session was destroyed) and its pending callbacks run with the error.
//
// Received body bytes wait in the stream until ReadBody takes them; the
// window the session advertises for the stream is replenished only as they
// are taken, so a stream buffers at most its receive window.

#ifndef NET_SPDY_SPDY_STREAM_H_
#define NET_SPDY_SPDY_STREAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

class SpdySession;
struct ClientCert;

// SpdyStreamParams says how to open a stream.
struct SpdyStreamParams {
  // 0 (highest) .. 7 (lowest); higher numbers are clamped to 7.
  uint8_t priority = 3;
  // The request's origin. Requests for another origin than the session's
  // (a pooled session) need their own credential.
  Origin origin;
  // The origin-bound certificate to present for |origin|, or null. Copied
  // by CreateStream. If it is not the one the TLS handshake presented for
  // the session's own origin, a CREDENTIAL frame puts it in a slot first
  // and the SYN_STREAM names that slot.
  const ClientCert* client_cert = nullptr;
};

class SpdyStream {
 public:
  ~SpdyStream();
  SpdyStream(const SpdyStream&) = delete;
  SpdyStream& operator=(const SpdyStream&) = delete;

  // SendRequest sends a SYN_STREAM with |headers| (the caller supplies the
  // SPDY/3 request headers, :method :path :version :host :scheme; see
  // MakeSpdyRequestHeaders) and then |body| in DATA frames as flow control
  // allows; FIN goes on the last frame. OK once all of it is written, or a
  // net error: ERR_SPDY_SERVER_REFUSED_STREAM if the session is going
  // away or the server did not take the stream (retry on a new
  // connection), ERR_SPDY_CREDENTIAL_UNAVAILABLE, ERR_SPDY_* for resets,
  // connection errors. Call once.
  int SendRequest(SpdyHeaderBlock headers, std::string body,
                  CompletionOnceCallback callback);

  // ReadResponseHeaders: OK once the SYN_REPLY is in (response_headers()),
  // or the error that ended the stream (ERR_SPDY_INVALID_CREDENTIALS for
  // RST_STREAM INVALID_CREDENTIALS, ...).
  int ReadResponseHeaders(CompletionOnceCallback callback);
  const SpdyHeaderBlock& response_headers() const { return response_headers_; }

  // ReadBody copies up to |len| body bytes into |buf|: a count > 0, 0 at the
  // end of the body (the server's FIN), or the error that ended the stream.
  // Bytes received before an error are still handed out first.
  int ReadBody(std::shared_ptr<IOBuffer> buf, int len,
               CompletionOnceCallback callback);

  // 0 until the SYN_STREAM is written.
  SpdyStreamId stream_id() const { return stream_id_; }
  uint8_t priority() const { return priority_; }
  const Origin& origin() const { return origin_; }
  // The CREDENTIAL slot the SYN_STREAM named (0: none or the handshake's
  // certificate), and whether a CREDENTIAL frame was sent for it.
  uint8_t credential_slot() const { return credential_slot_; }
  bool sent_credential() const { return sent_credential_; }
  // Flow-control windows: what we may still send, what the peer may.
  int32_t send_window() const { return send_window_; }
  int32_t recv_window() const { return recv_window_; }
  // Body bytes received and not yet read.
  size_t buffered_body_bytes() const { return recv_buffered_; }
  // Stream facts for traces.
  size_t body_bytes_sent() const { return body_offset_; }
  size_t body_bytes_received() const { return body_received_; }
  // Closed both ways (or reset); error() is why, OK for a clean end.
  bool closed() const { return closed_; }
  int error() const { return error_; }
  // The session, or null once it is gone.
  SpdySession* session() const { return session_.get(); }

 private:
  friend class SpdySession;

  enum State {
    STATE_NONE,
    STATE_REQUEST_SLOT,
    STATE_REQUEST_SLOT_COMPLETE,
    STATE_SEND_HEADERS,
    STATE_SEND_HEADERS_COMPLETE,
    STATE_SEND_BODY,
    STATE_SEND_BODY_COMPLETE,
  };

  SpdyStream(WeakPtr<SpdySession> session, const SpdyStreamParams& params,
             int32_t send_window, int32_t recv_window);

  int DoSendLoop(int result);
  int DoRequestSlot();
  int DoRequestSlotComplete(int result);
  int DoSendHeaders();
  int DoSendHeadersComplete(int result);
  int DoSendBody();
  int DoSendBodyComplete(int result);

  // Wake is how the session resumes a waiting send: |result| for the step
  // it waits on (OK: slot granted, frame written, window opened; or an
  // error). The callbacks then run from a posted task (Poke).
  void Wake(int result);
  // Poke posts (once) a task that runs whatever callbacks are now due.
  void Poke();
  void OnPoke();

  // From the session.
  void OnSynStreamWritten(SpdyStreamId id);
  void OnResponseHeaders(const SpdyHeaderBlock& headers, bool fin);
  void OnData(absl::string_view data);
  void OnRemoteFin();
  // Ends the stream with |error| (OK: both sides finished); pending
  // callbacks run with it (or, for reads, once buffered bytes are read).
  void Close(int error);
  // ReadBodyNow hands out buffered bytes (or 0 / the error at the end).
  int ReadBodyNow(IOBuffer* buf, int len);
  bool local_fin_sent() const { return local_fin_sent_; }
  bool remote_fin() const { return remote_fin_; }
  bool syn_written() const { return stream_id_ != 0; }

  WeakPtr<SpdySession> session_;
  const uint8_t priority_;
  const Origin origin_;
  // The certificate to present (copied from the params), if any.
  std::unique_ptr<ClientCert> client_cert_;

  // Send side.
  State next_state_ = STATE_NONE;
  CompletionOnceCallback send_callback_;
  std::optional<int> wake_result_;
  SpdyHeaderBlock request_headers_;
  std::string body_;
  size_t body_offset_ = 0;
  bool has_slot_ = false;
  bool waiting_for_window_ = false;
  bool local_fin_sent_ = false;
  SpdyStreamId stream_id_ = 0;
  uint8_t credential_slot_ = 0;
  bool sent_credential_ = false;
  int32_t send_window_;

  // Receive side.
  CompletionOnceCallback headers_callback_;
  SpdyHeaderBlock response_headers_;
  bool response_headers_received_ = false;
  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  CompletionOnceCallback read_callback_;
  // Received body bytes; recv_buf_[recv_offset_..] are not yet read. At most
  // a receive window's worth are unread, and the buffer is compacted as it
  // is read, so it stays within about twice that.
  std::string recv_buf_;
  size_t recv_offset_ = 0;
  size_t recv_buffered_ = 0;
  size_t body_received_ = 0;
  int32_t recv_window_;
  const int32_t recv_window_size_;  // what a full window is
  int32_t recv_unacked_ = 0;        // consumed but not yet WINDOW_UPDATEd
  bool remote_fin_ = false;

  bool closed_ = false;
  int error_ = OK;
  bool poke_posted_ = false;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SpdyStream> weak_factory_{this};
};

// MakeSpdyRequestHeaders builds a SPDY/3 request header block: :method,
// :path, :version (HTTP/1.1), :host, :scheme from |url|, then |headers|
// (name, value) with names lower-cased, the headers SPDY forbids
// (Connection, Host, Keep-Alive, Proxy-Connection, Transfer-Encoding)
// dropped, and repeated names joined with NUL.
SpdyHeaderBlock MakeSpdyRequestHeaders(
    absl::string_view method, const Url& url,
    const std::vector<std::pair<std::string, std::string>>& headers = {});

// SpdyResponseStatus returns the numeric :status of a SYN_REPLY ("200" or
// "200 OK"), or -1 if it is missing or malformed.
int SpdyResponseStatus(const SpdyHeaderBlock& headers);

}  // namespace net

#endif  // NET_SPDY_SPDY_STREAM_H_
