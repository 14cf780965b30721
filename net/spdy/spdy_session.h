// SpdySession: the client side of one SPDY/3 connection, multiplexing
// SpdyStreams over a connected StreamSocket (TLS with ALPN spdy/3, or a
// plain socket for plain-mode peers).
//
//   - Streams get odd ids, in increasing order on the wire: an id is given
//     when the stream's SYN_STREAM is written, not when it is asked for.
//   - Writes go through a queue ordered by priority (session control frames
//     first, then stream frames by priority 0..7, FIFO within one). A
//     stream has at most one DATA frame queued at a time, so streams of one
//     priority take turns. Header blocks are compressed as frames are
//     written, in wire order (the zlib stream spans the connection).
//   - SETTINGS: MAX_CONCURRENT_STREAMS (streams beyond it wait, by
//     priority), INITIAL_WINDOW_SIZE (applied to open streams' send
//     windows, which may go negative), CLIENT_CERTIFICATE_VECTOR_SIZE
//     (resizes the credential vector). The first of a repeated id counts.
//     Nothing is persisted: PERSIST_VALUE / PERSISTED / CLEAR_SETTINGS are
//     accepted and have no further effect.
//   - Flow control per stream both ways: 64 KB windows unless SETTINGS say
//     otherwise; the receive window is replenished (WINDOW_UPDATE) as the
//     stream's reader takes bytes, once half a window is consumed. A peer
//     that sends beyond the window gets RST_STREAM FLOW_CONTROL_ERROR.
//   - PING: the server's (even ids) are echoed; ours (odd) measure RTT.
//   - RST_STREAM both ways; each status maps to a net error.
//   - GOAWAY: streams above its last-good id fail with
//     ERR_SPDY_SERVER_REFUSED_STREAM (retry on a new connection); no new
//     streams start; the session closes when the rest are done.
//   - Server push is refused: RST_STREAM REFUSED_STREAM, its header block
//     inflated (the zlib stream needs it) and its data ignored.
//   - Idle (no stream open or waiting) for idle_timeout: GOAWAY and close.
//   - CREDENTIAL: a stream whose certificate is not the handshake's gets a
//     slot (SpdyCredentialState); the CREDENTIAL frame is written right
//     before its SYN_STREAM.
//
// Memory is bounded: per stream its receive window of body bytes and one
// queued DATA frame; control frames waiting to be written at most
// max_queued_control_bytes (beyond it the peer is not reading and the
// session closes); frames as SpdyLimits allow.
//
// Errors: a framing error (or a protocol violation the draft calls a
// session error) sends GOAWAY PROTOCOL_ERROR and closes the session; every
// stream fails with the error. A closed connection fails open streams with
// ERR_CONNECTION_CLOSED, or ERR_SPDY_GOAWAY_ERROR if the server's GOAWAY
// named an error; streams whose SYN_STREAM never left fail with
// ERR_SPDY_SERVER_REFUSED_STREAM (safe to retry).
//
// Owns the socket. The owner (a SpdySessionPool, or a test) owns the
// session; on_closed tells it when the session is done, from a posted task,
// so the owner may destroy it then. Streams are owned by their callers and
// hold a WeakPtr to the session. Network-thread affine.

#ifndef NET_SPDY_SPDY_SESSION_H_
#define NET_SPDY_SPDY_SESSION_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"
#include "net/spdy/spdy_credential.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_framer.h"
#include "net/spdy/spdy_protocol.h"
#include "net/spdy/spdy_stream.h"

namespace net {

struct SpdySessionParams {
  // The origin the connection was made for (the TLS server name). Streams
  // for it present the handshake's certificate without a CREDENTIAL.
  Origin origin;
  // The receive window we advertise per stream (sent in our SETTINGS).
  int32_t initial_recv_window = kSpdyInitialWindowSize;
  // Streams open at once until the server's SETTINGS says how many, and
  // the most we ever open whatever it says.
  uint32_t initial_max_concurrent_streams = 100;
  uint32_t max_concurrent_streams_cap = 1000;
  // Our DATA frames carry at most this many bytes.
  size_t max_data_frame_size = 16 * 1024;
  // No stream open or waiting for this long: GOAWAY and close. Zero: never.
  absl::Duration idle_timeout = absl::Minutes(5);
  // A PING of ours unanswered this long closes the session
  // (ERR_SPDY_PING_FAILED).
  absl::Duration ping_timeout = absl::Seconds(10);
  // Control frames waiting to be written beyond this many bytes close the
  // session (a peer that sends PINGs and never reads our answers).
  size_t max_queued_control_bytes = 1 << 20;
  SpdyLimits limits;
  const TickClock* clock = nullptr;  // null: DefaultTickClock
  // CREDENTIAL: the TLS connection's exporter (null for plain SPDY: a
  // stream that needs a CREDENTIAL then fails with
  // ERR_SPDY_CREDENTIAL_UNAVAILABLE) and the certificate the handshake
  // presented (DER; empty if none).
  SpdyKeyingMaterialExporter export_keying_material;
  std::string handshake_cert_der;
};

// Frame counts by type, each direction, for tests and traces.
struct SpdySessionStats {
  std::map<SpdyFrameType, uint64_t> frames_sent;
  std::map<SpdyFrameType, uint64_t> frames_received;
  uint64_t bytes_written = 0;
  uint64_t bytes_read = 0;
  uint64_t streams_started = 0;
  uint64_t pushes_refused = 0;
  uint64_t credentials_sent = 0;
  uint64_t window_updates_sent = 0;
  // Most control-frame bytes queued at once.
  size_t max_queued_control_bytes = 0;
};

class SpdySession : public SpdyDeframerVisitorInterface {
 public:
  enum class State { kNew, kOpen, kGoingAway, kClosed };

  SpdySession(std::unique_ptr<StreamSocket> socket, SpdySessionParams params);
  ~SpdySession() override;
  SpdySession(const SpdySession&) = delete;
  SpdySession& operator=(const SpdySession&) = delete;

  // Start queues our SETTINGS and starts reading (from a posted task).
  void Start();

  // CreateStream makes a stream on this session: OK, or
  // ERR_SPDY_SERVER_REFUSED_STREAM if it is going away or closed (use a new
  // connection).
  int CreateStream(const SpdyStreamParams& params,
                   std::unique_ptr<SpdyStream>* stream);

  // Ping sends a PING and returns ERR_IO_PENDING; |callback| gets OK when
  // the echo arrives (last_ping_rtt() is then its round trip) or the
  // session's error. ERR_INSUFFICIENT_RESOURCES if 8 are outstanding.
  int Ping(CompletionOnceCallback callback);
  absl::Duration last_ping_rtt() const { return last_ping_rtt_; }

  // GoAway sends GOAWAY (OK) and stops taking streams; open ones finish,
  // then the session closes.
  void GoAway();
  // CloseWithError closes now: streams fail with |error|.
  void CloseWithError(int error, const std::string& detail);

  // on_closed runs once, from a posted task, when the session has closed;
  // the owner may destroy the session from it. on_going_away runs when it
  // stops taking new streams (GOAWAY either way, idle, error).
  void set_on_closed(absl::AnyInvocable<void(SpdySession*)> cb) {
    on_closed_ = std::move(cb);
  }
  void set_on_going_away(absl::AnyInvocable<void(SpdySession*)> cb) {
    on_going_away_ = std::move(cb);
  }

  // Takes new streams.
  bool IsAvailable() const { return state_ == State::kOpen; }
  State state() const { return state_; }
  // The error that closed the session (OK for a clean close) and why.
  int error() const { return error_; }
  const std::string& error_detail() const { return error_detail_; }
  const Origin& origin() const { return params_.origin; }
  StreamSocket* socket() const { return socket_.get(); }

  // Facts for tests and traces.
  size_t active_streams() const { return active_count_; }
  size_t waiting_streams() const;
  uint32_t max_concurrent_streams() const { return max_concurrent_; }
  int32_t peer_initial_window() const { return peer_initial_window_; }
  const SpdyCredentialState& credential_state() const { return credentials_; }
  // The server's GOAWAY, if one came.
  std::optional<SpdyGoAwayIR> received_goaway() const {
    return received_goaway_;
  }
  // The SETTINGS values in force from the server (first of a repeated id).
  const std::map<uint32_t, uint32_t>& peer_settings() const {
    return peer_settings_;
  }
  const SpdySessionStats& stats() const { return stats_; }
  size_t queued_control_bytes() const { return queued_control_bytes_; }
  WeakPtr<SpdySession> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

 private:
  friend class SpdyStream;

  // One frame waiting to be written. A SYN_STREAM is built when it is
  // dequeued (its id and compressed block must follow wire order).
  struct PendingFrame {
    SpdyFrameType type = SpdyFrameType::kData;
    SpdyStream* stream = nullptr;  // SYN_STREAM and DATA only
    std::string bytes;             // empty for a SYN_STREAM
    bool fin = false;
  };

  // Called by SpdyStream.
  int RequestSlot(SpdyStream* stream);
  void EnqueueSynStream(SpdyStream* stream);
  void EnqueueData(SpdyStream* stream, absl::string_view data, bool fin);
  void OnBodyConsumed(SpdyStream* stream, size_t bytes);
  void OnStreamDestroyed(SpdyStream* stream);

  // Queueing and writing.
  void EnqueueControl(const SpdyFrameIR& frame);
  void ScheduleWrite();
  void DoWriteLoop();
  void OnWriteComplete(int rv);
  // Accounts for a write's result; false if the write loop must stop.
  bool HandleWriteResult(int rv);
  // Builds a SYN_STREAM (and a CREDENTIAL before it, if needed) into
  // |out|; false if the stream failed instead.
  bool BuildSynStream(SpdyStream* stream, std::string* out);
  // EnsureCredential gives the slot the stream's SYN_STREAM names for
  // |cert|: 0 for the handshake's certificate on the session's origin, a
  // slot already holding it, or a new one (appending its CREDENTIAL frame
  // to |out|). A net error if no CREDENTIAL can be made.
  int EnsureCredential(const Origin& origin, const ClientCert& cert,
                       std::string* out, bool* sent);

  // Reading.
  void ScheduleRead();
  void DoReadLoop();
  void OnReadComplete(int rv);
  bool ProcessReadData(absl::string_view data);

  // SpdyDeframerVisitorInterface:
  void OnError(SpdyDeframerError error, const std::string& detail) override;
  void OnDataFrameHeader(SpdyStreamId stream_id, size_t length,
                         bool fin) override;
  void OnStreamFrameData(SpdyStreamId stream_id,
                         absl::string_view data) override;
  void OnStreamEnd(SpdyStreamId stream_id) override;
  void OnSynStream(const SpdySynStreamIR& frame) override;
  void OnSynReply(const SpdySynReplyIR& frame) override;
  void OnRstStream(const SpdyRstStreamIR& frame) override;
  void OnSettings(const SpdySettingsIR& frame) override;
  void OnPing(const SpdyPingIR& frame) override;
  void OnGoAway(const SpdyGoAwayIR& frame) override;
  void OnHeaders(const SpdyHeadersIR& frame) override;
  void OnWindowUpdate(const SpdyWindowUpdateIR& frame) override;
  void OnCredential(const SpdyCredentialIR& frame) override;
  void OnUnknownControlFrame(uint16_t type, uint8_t flags,
                             absl::string_view payload) override;

  // Stream bookkeeping.
  SpdyStream* FindActiveStream(SpdyStreamId id) const;
  // ResetStream sends RST_STREAM |status| and ends the stream with |error|.
  void ResetStream(SpdyStream* stream, SpdyRstStreamStatus status, int error);
  // CloseStream ends |stream| with |error| and frees its slot.
  void CloseStream(SpdyStream* stream, int error);
  void MaybeCloseStreamCleanly(SpdyStream* stream);
  void RemoveQueuedFrames(SpdyStream* stream);
  void AdmitWaitingStreams();
  void MaybeFinishGoingAway();
  void UpdateIdleTimer();
  void StartGoingAway();
  // Protocol violation by the peer: GOAWAY PROTOCOL_ERROR, then close.
  void SessionProtocolError(const std::string& detail);
  // Closes: fails every stream with |error| (streams never written get
  // ERR_SPDY_SERVER_REFUSED_STREAM), sends |goaway| first if given.
  void DoClose(int error, const std::string& detail,
               std::optional<SpdyGoAwayStatus> goaway);
  void FinishClose();
  void OnPingTimeout();
  TimeTicks Now() const;

  std::unique_ptr<StreamSocket> socket_;
  SpdySessionParams params_;
  const TickClock* clock_;
  SpdyFramer framer_;
  SpdyDeframer deframer_;
  SpdyCredentialState credentials_;
  State state_ = State::kNew;
  int error_ = OK;
  std::string error_detail_;

  // Streams.
  SpdyStreamId next_stream_id_ = 1;
  absl::flat_hash_map<SpdyStreamId, SpdyStream*> active_by_id_;
  // Every stream holding a slot (SYN queued or on the wire), and how many.
  std::vector<SpdyStream*> slotted_;
  size_t active_count_ = 0;
  // Streams waiting for a slot, by priority.
  std::array<std::deque<SpdyStream*>, kSpdyLowestPriority + 1> waiting_;
  uint32_t max_concurrent_;
  int32_t peer_initial_window_ = kSpdyInitialWindowSize;
  SpdyStreamId last_push_id_ = 0;
  std::map<uint32_t, uint32_t> peer_settings_;
  std::optional<SpdyGoAwayIR> received_goaway_;
  // The stream whose DATA frame is being received (OnDataFrameHeader), or
  // null if that data is being ignored.
  SpdyStream* data_stream_ = nullptr;

  // Writing. Queue 0 holds session control frames (and RST_STREAM /
  // WINDOW_UPDATE); queue 1 + p holds frames of streams of priority p.
  std::array<std::deque<PendingFrame>, kSpdyLowestPriority + 2> queues_;
  size_t queued_control_bytes_ = 0;
  bool write_scheduled_ = false;
  std::shared_ptr<DrainableIOBuffer> write_buf_;
  // Streams whose SYN_STREAM or DATA is in write_buf_, to tell when it is
  // written, and whether that frame carried FIN.
  std::vector<std::pair<WeakPtr<SpdyStream>, bool>> in_flight_;
  bool close_after_write_ = false;

  // Reading.
  std::shared_ptr<IOBuffer> read_buf_;
  bool read_scheduled_ = false;
  bool read_pending_ = false;

  // CREDENTIAL: the exported keying material, once.
  std::string credential_secret_;

  // PING.
  uint32_t next_ping_id_ = 1;
  struct PendingPing {
    TimeTicks sent;
    CompletionOnceCallback callback;
  };
  std::map<uint32_t, PendingPing> pings_;
  OneShotTimer ping_timer_;
  absl::Duration last_ping_rtt_ = absl::ZeroDuration();

  OneShotTimer idle_timer_;
  bool closed_notified_ = false;
  absl::AnyInvocable<void(SpdySession*)> on_closed_;
  absl::AnyInvocable<void(SpdySession*)> on_going_away_;
  SpdySessionStats stats_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SpdySession> weak_factory_{this};
};

// SpdyRstStatusToError maps a received RST_STREAM status to the stream's
// net error.
int SpdyRstStatusToError(SpdyRstStreamStatus status);

// IsSpdyRetryableError: the request never reached the server's application
// (or the server asked for a direct connection), so it may be sent again on
// a new connection: ERR_SPDY_SERVER_REFUSED_STREAM,
// ERR_SPDY_INVALID_CREDENTIALS.
bool IsSpdyRetryableError(int error);

}  // namespace net

#endif  // NET_SPDY_SPDY_SESSION_H_
