// QuicSession: the client side of one QUIC v1 connection (RFC 9000, 9001,
// 9002) on ngtcp2, driven from our event loop over a DatagramClientSocket.
// ngtcp2 does the packets, loss recovery, congestion control and stream
// state; this class does the I/O and the policy:
// - every datagram the socket reads goes to ngtcp2_conn_read_pkt; what
//   ngtcp2_conn_writev_stream produces (the delegate's stream data first,
//   then ACKs, retransmissions, control frames) is written with our
//   asynchronous Write, one datagram in flight at a time; ngtcp2 never sees
//   the socket and never blocks;
// - ngtcp2_conn_get_expiry is one OneShotTimer, handle_expiry when it fires
//   (loss detection, ACK delay, pacing, the idle and handshake timeouts);
// - TLS 1.3 through BoringSSL and ngtcp2's BoringSSL crypto helper, with
//   the project's CertVerifier asked asynchronously in the middle of the
//   handshake (SSL_set_custom_verify), exactly as SSLClientSocket does:
//   the ssl_info() has the same cert_verify facts as a TCP connection's;
// - bounded: stream data is credited back to the server (stream and
//   connection flow control) only as the delegate consumes it, so a server
//   can make us hold at most stream_window per stream and session_window
//   in all; reads yield to the loop after kMaxDatagramsPerTurn datagrams,
//   writes likewise;
// - every end has a named error: the handshake timeout (no UDP answer:
//   ERR_QUIC_HANDSHAKE_TIMEOUT), the idle timeout (ERR_QUIC_IDLE_TIMEOUT),
//   a TLS alert (ERR_QUIC_HANDSHAKE_FAILED, or the certificate's error),
//   the server's CONNECTION_CLOSE (ERR_QUIC_PROTOCOL_ERROR with its code,
//   ERR_QUIC_PEER_CLOSED for NO_ERROR or an application code), ICMP port
//   unreachable (ERR_CONNECTION_REFUSED), a stateless reset, version
//   negotiation; close_detail() says which and with what code.
//
// The delegate (Http3Session) is the application on top: it gets the
// streams' data and gives the data to send. Its calls come from inside
// ngtcp2's callbacks (they must not destroy the session); the session's
// own ends (Connect's callback, OnSessionClosed) run from posted tasks.
//
// Ownership: the owner (Http3Session) owns the session, and the session
// owns its socket. The QuicClientContext is not owned and must outlive it.
// Network-thread affine.

#ifndef NET_QUIC_QUIC_SESSION_H_
#define NET_QUIC_QUIC_SESSION_H_

#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/quic/quic_client_context.h"
#include "net/quic/quic_packet_counter.h"
#include "net/socket/datagram_client_socket.h"
#include "net/ssl/ssl_info.h"

namespace net {

struct QuicSessionParams {
  // The server's name (SNI, certificate verification) and port.
  std::string host;
  uint16_t port = 443;
  // ALPN offered; HTTP/3's "h3".
  std::vector<std::string> alpn = {"h3"};
  // No handshake within this: ERR_QUIC_HANDSHAKE_TIMEOUT. Short, since the
  // request falls back to TCP after it (Chromium races TCP instead).
  absl::Duration handshake_timeout = absl::Seconds(3);
  // Our max_idle_timeout transport parameter (the smaller of ours and the
  // server's applies, RFC 9000 10.1): Chromium's 30 s.
  absl::Duration idle_timeout = absl::Seconds(30);
  // Flow control we grant: per stream (Chromium's 6 MB) and in all (15 MB).
  uint64_t stream_window = 6 * 1024 * 1024;
  uint64_t session_window = 15 * 1024 * 1024;
  // Unidirectional streams the server may open: HTTP/3's control stream
  // and two QPACK streams, and room for ones it may add (RFC 9114 6.2.3
  // reserved types), no more.
  uint64_t max_server_uni_streams = 16;
  // The clock the trace's timestamps are read from. Not owned.
  const TickClock* clock = DefaultTickClock::GetInstance();
};

// What the trace reports of a QUIC connection.
struct QuicConnectionFacts {
  uint32_t version = 0;  // 1: QUIC v1
  TimeTicks connect_start;
  TimeTicks handshake_done;  // null until it completed
  // QUIC packets (not datagrams), from ngtcp2's qlog events.
  QuicPacketCounts packets;
  absl::Duration smoothed_rtt = absl::ZeroDuration();
  absl::Duration min_rtt = absl::ZeroDuration();
  // 0-RTT: "none" (not offered: no ticket, or one without early data),
  // "accepted", "rejected" (the requests sent early went again in 1-RTT);
  // "offered" while the handshake runs.
  std::string zero_rtt = "none";
  // BoringSSL's reason when early data was not accepted ("peer_declined",
  // "session_not_resumed", ...); "" else.
  std::string zero_rtt_reason;
  // Whether our Initial carried an address validation token a server gave
  // in a NEW_TOKEN frame on an earlier connection (RFC 9000 8.1.3): "sent"
  // or "none".
  std::string address_token = "none";
  // Round trips the handshake made requests wait, from what happened (-1
  // until the handshake completed): 0 when the server accepted 0-RTT;
  // else 1, plus 1 per Retry, plus 1 when the server's handshake flight
  // (the datagrams that carried its Initial and Handshake messages) was
  // bigger than 3x our first flight, so the anti-amplification limit (RFC
  // 9000 8.1) made it wait for our next datagram — certain without a
  // token; with one sent (a token the server accepted lifts the limit),
  // only if the first datagram beyond the limit came at least half the
  // minimum RTT after our second flight left, as an answer to it would.
  // Lost packets are not counted.
  int handshake_rtts = -1;
  int retries = 0;
  // The handshake flight and the allowance the amplification rule is
  // judged by (bytes of UDP payload).
  uint64_t first_flight_bytes = 0;
  uint64_t server_handshake_bytes = 0;
  // How the connection ended, once it did ("" while open): "idle timeout
  // (30s without a packet from the server)", "server closed: transport
  // error 0xa (PROTOCOL_VIOLATION) ...", "we closed: ...".
  std::string close_reason;
};

// QuicTransportErrorName: RFC 9000 20.1's name of a transport error code
// ("PROTOCOL_VIOLATION"; "CRYPTO_ERROR(0x12a)" for 0x0100-0x01ff;
// "0x..." else).
std::string QuicTransportErrorName(uint64_t code);

class QuicSession {
 public:
  // The application on top (Http3Session). Stream ids are QUIC's.
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // The handshake completed (1-RTT keys both ways): open the control
    // streams. A negative return (a net error) closes the connection.
    virtual int OnHandshakeCompleted() = 0;
    // The server rejected 0-RTT: every stream opened so far is gone
    // (ngtcp2 discarded them); what was sent early must be sent again once
    // the handshake completes (OnHandshakeCompleted follows).
    virtual int OnEarlyDataRejected() = 0;
    // |len| bytes of stream |stream_id| at the current offset, and |fin|.
    // Returns how many may be credited back to the server's flow control
    // now (framing the delegate consumed); the rest it credits later with
    // ExtendStreamWindow. Negative: a net error that closes the connection
    // (the delegate set the application close code first).
    virtual int64_t OnStreamData(int64_t stream_id, const uint8_t* data,
                                 size_t len, bool fin) = 0;
    // The server acknowledged |len| more bytes of |stream_id|.
    virtual int OnStreamDataAcked(int64_t stream_id, uint64_t len) = 0;
    // The stream is closed both ways (|app_error| if |has_error|).
    virtual int OnStreamClosed(int64_t stream_id, bool has_error,
                               uint64_t app_error) = 0;
    // RESET_STREAM or STOP_SENDING from the server.
    virtual int OnStreamReset(int64_t stream_id, uint64_t app_error) = 0;
    virtual int OnStreamStopSending(int64_t stream_id, uint64_t app_error) = 0;
    // Flow control opened for |stream_id|; or more streams may be opened.
    virtual int OnStreamUnblocked(int64_t stream_id) = 0;
    virtual void OnMoreStreamsAllowed() = 0;
    // The write loop asks for the next stream data to send: fills |vec|
    // (at most |veccnt|), |*stream_id| (-1 for none) and |*fin|; returns
    // the count or a net error.
    virtual int64_t GetStreamData(int64_t* stream_id, bool* fin,
                                  ngtcp2_vec* vec, size_t veccnt) = 0;
    // ngtcp2 took |len| bytes of what GetStreamData gave for |stream_id|
    // (0 with fin: the fin went).
    virtual int OnStreamDataWritten(int64_t stream_id, size_t len) = 0;
    // |stream_id| cannot take data now (flow control), or no more ever.
    virtual void OnStreamWriteBlocked(int64_t stream_id) = 0;
    virtual void OnStreamWriteShut(int64_t stream_id) = 0;
    // The connection ended with |error| (from a posted task). The
    // delegate may destroy the session.
    virtual void OnSessionClosed(int error) = 0;
  };

  // |socket| is not yet connected; Connect connects it.
  QuicSession(std::unique_ptr<DatagramClientSocket> socket,
              QuicClientContext* context, QuicSessionParams params);
  ~QuicSession();
  QuicSession(const QuicSession&) = delete;
  QuicSession& operator=(const QuicSession&) = delete;

  void set_delegate(Delegate* delegate) { delegate_ = delegate; }

  // Connect sends the Initial to |peer| and runs the handshake: OK once it
  // completed (ALPN h3, the certificate verified), or a named error.
  // Usually ERR_IO_PENDING. With a ticket for the server (QuicClientContext)
  // it resumes; if the ticket allows early data, in_early_data() is true
  // when Connect returns: streams may be opened and written at once (0-RTT
  // packets) while the handshake runs.
  int Connect(const IPEndPoint& peer, CompletionOnceCallback callback);

  // For the delegate.
  // Opens a stream: OK, or ERR_IO_PENDING when the server's stream limit is
  // reached (OnMoreStreamsAllowed says when to try again).
  int OpenBidiStream(int64_t* stream_id);
  int OpenUniStream(int64_t* stream_id);
  // The delegate's reader took |len| bytes of |stream_id|: credit them.
  void ExtendStreamWindow(int64_t stream_id, uint64_t len);
  // Resets |stream_id| both ways with |app_error| (H3_REQUEST_CANCELLED),
  // or one way (STOP_SENDING / RESET_STREAM).
  void ShutdownStream(int64_t stream_id, uint64_t app_error);
  void ShutdownStreamRead(int64_t stream_id, uint64_t app_error);
  void ShutdownStreamWrite(int64_t stream_id, uint64_t app_error);
  // A server-opened unidirectional stream ended: it may open one more.
  void ExtendMaxServerUniStreams(uint64_t n);
  // The delegate has something new to send: write soon (a posted task, so
  // it may be called from anywhere, ngtcp2's callbacks included).
  void ScheduleWrite();
  // Writes now (not from inside ngtcp2's callbacks): a request submitted in
  // early data leaves in 0-RTT packets before any answer is processed.
  void FlushWrites() { WritePackets(); }
  // Closes the connection now with an application error (CONNECTION_CLOSE
  // of type 0x1d with |app_error|, RFC 9000 19.19), ending with |error|.
  void CloseWithApplicationError(uint64_t app_error, int error,
                                 const std::string& detail);
  // The delegate names the application error to close with, if it makes a
  // callback fail (nghttp3's error, inferred).
  void SetApplicationCloseError(uint64_t app_error, const std::string& detail);

  bool handshake_completed() const { return handshake_completed_; }
  // 0-RTT keys are in and the handshake has not completed: what is sent now
  // may be replayed by an attacker (replay-safe requests only).
  bool in_early_data() const;
  // BoringSSL's new-session callback (QuicClientContext installs it): keeps
  // the ticket with the server's transport parameters in the context.
  static int OnNewSessionTicket(SSL* ssl, SSL_SESSION* session);
  bool closed() const { return closed_; }
  int error() const { return error_; }
  const std::string& error_detail() const { return error_detail_; }
  const SSLInfo& ssl_info() const { return ssl_info_; }
  // The facts for the trace, read fresh (RTTs from ngtcp2_conn_get_conn_info).
  QuicConnectionFacts facts() const;
  const IPEndPoint& peer() const { return peer_; }
  const IPEndPoint& local() const { return local_; }

  WeakPtr<QuicSession> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

 private:
  struct ConnDeleter {
    void operator()(ngtcp2_conn* c) const { ngtcp2_conn_del(c); }
  };

  // ngtcp2 callbacks; user_data is the session.
  static int OnRecvCryptoData(ngtcp2_conn* conn, ngtcp2_encryption_level level,
                              uint64_t offset, const uint8_t* data,
                              size_t datalen, void* user_data);
  static int OnHandshakeCompletedCb(ngtcp2_conn* conn, void* user_data);
  static int OnTlsEarlyDataRejected(ngtcp2_conn* conn, void* user_data);
  static int OnRecvStreamData(ngtcp2_conn* conn, uint32_t flags,
                              int64_t stream_id, uint64_t offset,
                              const uint8_t* data, size_t datalen,
                              void* user_data, void* stream_user_data);
  static int OnAckedStreamDataOffset(ngtcp2_conn* conn, int64_t stream_id,
                                     uint64_t offset, uint64_t datalen,
                                     void* user_data, void* stream_user_data);
  static int OnStreamClose(ngtcp2_conn* conn, uint32_t flags, int64_t stream_id,
                           uint64_t app_error_code, void* user_data,
                           void* stream_user_data);
  static int OnStreamResetCb(ngtcp2_conn* conn, int64_t stream_id,
                             uint64_t final_size, uint64_t app_error_code,
                             void* user_data, void* stream_user_data);
  static int OnStreamStopSendingCb(ngtcp2_conn* conn, int64_t stream_id,
                                   uint64_t app_error_code, void* user_data,
                                   void* stream_user_data);
  static int OnExtendMaxLocalStreamsBidi(ngtcp2_conn* conn,
                                         uint64_t max_streams, void* user_data);
  static int OnExtendMaxStreamData(ngtcp2_conn* conn, int64_t stream_id,
                                   uint64_t max_data, void* user_data,
                                   void* stream_user_data);
  static int OnRecvStatelessReset(ngtcp2_conn* conn,
                                  const ngtcp2_pkt_stateless_reset* sr,
                                  void* user_data);
  static int OnRecvVersionNegotiation(ngtcp2_conn* conn,
                                      const ngtcp2_pkt_hd* hd,
                                      const uint32_t* sv, size_t nsv,
                                      void* user_data);
  static int OnRecvNewToken(ngtcp2_conn* conn, const uint8_t* token,
                            size_t tokenlen, void* user_data);
  static int OnRecvRetry(ngtcp2_conn* conn, const ngtcp2_pkt_hd* hd,
                         void* user_data);
  static void Rand(uint8_t* dest, size_t destlen,
                   const ngtcp2_rand_ctx* rand_ctx);
  static int GetNewConnectionId(ngtcp2_conn* conn, ngtcp2_cid* cid,
                                uint8_t* token, size_t cidlen, void* user_data);
  static void QlogWrite(void* user_data, uint32_t flags, const void* data,
                        size_t datalen);
  static ngtcp2_conn* GetConn(ngtcp2_crypto_conn_ref* ref);
  static ssl_verify_result_t VerifyCallback(SSL* ssl, uint8_t* out_alert);

  int InitTls();
  int InitConnection();
  // Runs SSL_do_handshake after new CRYPTO data or a finished
  // verification: 0, or an ngtcp2 error for the callback to return.
  int DriveHandshake();
  void StartVerify();
  void OnVerifyDone(int result);
  void FillSslInfo();
  // Once the handshake completed: facts_.handshake_rtts from what happened.
  void MaybeCountHandshakeRtts();
  // Writes after a datagram or a verification moved the handshake on
  // (|was_completed|: whether it had completed before).
  void WriteAfterHandshakeStep(bool was_completed);
  // The session cache key: "host:port".
  std::string SessionKey() const;

  void DoRead();
  void OnReadDone(int rv);
  // Feeds one datagram to ngtcp2; false once the session closed.
  bool ProcessDatagram(int len);
  void WritePackets();
  void OnWriteDone(int rv);
  // Sends |len| bytes of send_buf_: false when the write is pending or
  // failed (then the session closed).
  bool SendDatagram(size_t len);
  // ngtcp2_conn_update_pkt_tx_time after a write pass, from the handshake's
  // completion on (see the .cc).
  void UpdatePacing(ngtcp2_tstamp ts);
  void ArmTimer();
  void OnTimer();
  absl::Duration EffectiveIdleTimeout() const;
  // ngtcp2 returned the fatal |liberr|: send CONNECTION_CLOSE if ngtcp2 can
  // still write one, and close with the error it stands for.
  void HandleLibError(int liberr);
  // The connection ended: |error|, a trace reason; sends CONNECTION_CLOSE
  // (|send_close|) first. Runs the pending Connect callback or the
  // delegate's OnSessionClosed from a posted task.
  void Close(int error, const std::string& reason, bool send_close);
  void RunConnectCallback(int rv);
  // The server's CONNECTION_CLOSE (after NGTCP2_ERR_DRAINING) as an error.
  void CloseFromPeer();

  std::unique_ptr<DatagramClientSocket> socket_;
  QuicClientContext* const context_;
  QuicSessionParams params_;
  Delegate* delegate_ = nullptr;
  IPEndPoint peer_;
  IPEndPoint local_;
  sockaddr_storage peer_sa_ = {};
  socklen_t peer_sa_len_ = 0;
  sockaddr_storage local_sa_ = {};
  socklen_t local_sa_len_ = 0;

  bssl::UniquePtr<SSL> ssl_;
  std::unique_ptr<ngtcp2_conn, ConnDeleter> conn_;
  ngtcp2_crypto_conn_ref conn_ref_ = {};
  SSLInfo ssl_info_;
  // The server's 0-RTT transport parameters from the ticket we resume
  // with (empty: no 0-RTT).
  std::string early_transport_params_;
  bool early_data_offered_ = false;
  // The last datagram read while the handshake runs (see OnVerifyDone).
  std::string last_handshake_datagram_;
  // The NEW_TOKEN token our Initial carries ("" none): ngtcp2 copies it.
  std::string address_token_;
  // For handshake_rtts: whether a datagram came from the server yet, when
  // the first did, whether the one being read carried Initial or Handshake
  // CRYPTO data, and when the first datagram beyond 3x our first flight
  // came, and when our second flight (the first datagram after one came)
  // left (0: not yet); ngtcp2's clock, as its RTTs.
  bool received_any_ = false;
  ngtcp2_tstamp second_flight_sent_ = 0;
  bool datagram_had_handshake_crypto_ = false;
  ngtcp2_tstamp beyond_allowance_received_ = 0;
  bool verify_started_ = false;
  bool verify_done_ = false;
  std::unique_ptr<CertVerifier::Request> verify_request_;

  bool handshake_completed_ = false;
  bool closed_ = false;
  int error_ = OK;
  std::string error_detail_;
  // An application close code the delegate asked for.
  bool app_close_set_ = false;
  uint64_t app_close_code_ = 0;
  std::string app_close_detail_;
  CompletionOnceCallback connect_callback_;

  std::shared_ptr<IOBuffer> read_buf_;
  bool read_pending_ = false;
  bool read_posted_ = false;
  std::shared_ptr<IOBuffer> send_buf_;
  bool write_pending_ = false;
  bool write_posted_ = false;
  bool in_write_ = false;

  OneShotTimer timer_;
  QuicConnectionFacts facts_;
  QuicPacketCounter packet_counter_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<QuicSession> weak_factory_{this};
};

}  // namespace net

#endif  // NET_QUIC_QUIC_SESSION_H_
