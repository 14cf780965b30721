#include "net/quic/quic_session.h"

#include <ngtcp2/ngtcp2_crypto_boringssl.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <time.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/base/check.h"

namespace net {
namespace {

// Datagrams read (or written) before yielding to the loop: a server that
// never stops sending cannot starve the timers.
constexpr int kMaxDatagramsPerTurn = 64;
// Largest UDP payload we read (the IPv4 maximum), and the most we send:
// ngtcp2 probes upwards from 1200 (PMTUD) to this.
constexpr size_t kMaxReadSize = 65527;
constexpr size_t kMaxSendSize = 1452;
// Connection id length we pick for our side.
constexpr size_t kCidLength = 16;

ngtcp2_tstamp NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<ngtcp2_tstamp>(ts.tv_sec) * NGTCP2_SECONDS +
         static_cast<ngtcp2_tstamp>(ts.tv_nsec);
}

ngtcp2_duration ToNs(absl::Duration d) {
  return static_cast<ngtcp2_duration>(absl::ToInt64Nanoseconds(d));
}

// The net error for a TLS alert BoringSSL sent or received during the
// handshake: a certificate error keeps its own name elsewhere.
std::string AlertName(uint8_t alert) {
  const char* name = SSL_alert_desc_string_long(alert);
  return name ? name : absl::StrCat(alert);
}

}  // namespace

std::string QuicTransportErrorName(uint64_t code) {
  static const char* const kNames[] = {
      "NO_ERROR",
      "INTERNAL_ERROR",
      "CONNECTION_REFUSED",
      "FLOW_CONTROL_ERROR",
      "STREAM_LIMIT_ERROR",
      "STREAM_STATE_ERROR",
      "FINAL_SIZE_ERROR",
      "FRAME_ENCODING_ERROR",
      "TRANSPORT_PARAMETER_ERROR",
      "CONNECTION_ID_LIMIT_ERROR",
      "PROTOCOL_VIOLATION",
      "INVALID_TOKEN",
      "APPLICATION_ERROR",
      "CRYPTO_BUFFER_EXCEEDED",
      "KEY_UPDATE_ERROR",
      "AEAD_LIMIT_REACHED",
      "NO_VIABLE_PATH",
  };
  if (code < sizeof(kNames) / sizeof(kNames[0])) return kNames[code];
  if (code >= 0x100 && code <= 0x1ff) {
    return absl::StrFormat("CRYPTO_ERROR(0x%x: TLS alert %s)", code,
                           AlertName(static_cast<uint8_t>(code - 0x100)));
  }
  if (code == 0x11) return "VERSION_NEGOTIATION_ERROR";
  return absl::StrFormat("0x%x", code);
}

QuicSession::QuicSession(std::unique_ptr<DatagramClientSocket> socket,
                         QuicClientContext* context, QuicSessionParams params)
    : socket_(std::move(socket)),
      context_(context),
      params_(std::move(params)),
      read_buf_(std::make_shared<IOBuffer>(kMaxReadSize)),
      send_buf_(std::make_shared<IOBuffer>(kMaxSendSize)) {}

QuicSession::~QuicSession() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // A session dropped while open says goodbye (best effort, one datagram):
  // the server need not wait out its idle timeout.
  if (conn_ && !closed_ && !ngtcp2_conn_in_closing_period(conn_.get()) &&
      !ngtcp2_conn_in_draining_period(conn_.get())) {
    ngtcp2_ccerr ccerr;
    ngtcp2_ccerr_default(&ccerr);
    ngtcp2_ccerr_set_application_error(&ccerr, 0x100 /* H3_NO_ERROR */, nullptr,
                                       0);
    ngtcp2_path_storage ps;
    ngtcp2_path_storage_zero(&ps);
    ngtcp2_pkt_info pi;
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(
        conn_.get(), &ps.path, &pi,
        reinterpret_cast<uint8_t*>(send_buf_->data()), send_buf_->capacity(),
        &ccerr, NowNs());
    if (n > 0 && !write_pending_) {
      socket_->Write(send_buf_, static_cast<int>(n), [](int) {});
    }
  }
  verify_request_.reset();
  // ngtcp2 first: its deletion frees crypto contexts through our callbacks
  // (which need nothing of ours), then the SSL it points at.
  conn_.reset();
  ssl_.reset();
}

// TLS ---------------------------------------------------------------------

ngtcp2_conn* QuicSession::GetConn(ngtcp2_crypto_conn_ref* ref) {
  return static_cast<QuicSession*>(ref->user_data)->conn_.get();
}

ssl_verify_result_t QuicSession::VerifyCallback(SSL* ssl, uint8_t* out_alert) {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(SSL_get_app_data(ssl));
  QuicSession* self = static_cast<QuicSession*>(ref->user_data);
  if (!self->verify_done_) return ssl_verify_retry;
  if (self->ssl_info_.cert_verify.error == OK) return ssl_verify_ok;
  switch (self->ssl_info_.cert_verify.error) {
    case ERR_CERT_DATE_INVALID:
      *out_alert = SSL_AD_CERTIFICATE_EXPIRED;
      break;
    case ERR_CERT_AUTHORITY_INVALID:
      *out_alert = SSL_AD_UNKNOWN_CA;
      break;
    case ERR_CERT_REVOKED:
      *out_alert = SSL_AD_CERTIFICATE_REVOKED;
      break;
    default:
      *out_alert = SSL_AD_BAD_CERTIFICATE;
      break;
  }
  return ssl_verify_invalid;
}

int QuicSession::InitTls() {
  if (!context_->ok()) {
    error_detail_ = "BoringSSL could not set up a QUIC TLS context";
    return ERR_UNEXPECTED;
  }
  ssl_.reset(SSL_new(context_->ssl_ctx()));
  if (!ssl_) return ERR_OUT_OF_MEMORY;
  conn_ref_.get_conn = &QuicSession::GetConn;
  conn_ref_.user_data = this;
  SSL_set_app_data(ssl_.get(), &conn_ref_);
  SSL_set_connect_state(ssl_.get());
  std::string wire;
  for (const std::string& proto : params_.alpn) {
    if (proto.empty() || proto.size() > 255) return ERR_INVALID_ARGUMENT;
    wire.push_back(static_cast<char>(proto.size()));
    wire += proto;
  }
  if (SSL_set_alpn_protos(ssl_.get(),
                          reinterpret_cast<const uint8_t*>(wire.data()),
                          wire.size()) != 0) {
    return ERR_INVALID_ARGUMENT;
  }
  // SNI only for names (RFC 6066 section 3).
  if (!IPAddress::Parse(params_.host))
    SSL_set_tlsext_host_name(ssl_.get(), params_.host.c_str());
  SSL_enable_ocsp_stapling(ssl_.get());
  SSL_set_custom_verify(ssl_.get(), SSL_VERIFY_PEER,
                        &QuicSession::VerifyCallback);
  // Resumption with the origin's ticket; early data when it allows it and
  // we know the server's transport parameters it came with (RFC 9000
  // 7.4.1: 0-RTT must respect the limits the server gave then).
  SSL_set_early_data_enabled(ssl_.get(), 0);
  QuicResumption resumption = context_->LookupSession(SessionKey());
  if (resumption.session) {
    SSL_set_session(ssl_.get(), resumption.session.get());
    if (context_->early_data_enabled() &&
        !resumption.transport_params.empty() &&
        SSL_SESSION_early_data_capable(resumption.session.get())) {
      early_transport_params_ = std::move(resumption.transport_params);
      SSL_set_early_data_enabled(ssl_.get(), 1);
    }
  }
  return OK;
}

std::string QuicSession::SessionKey() const {
  return absl::StrCat(params_.host, ":", params_.port);
}

int QuicSession::OnNewSessionTicket(SSL* ssl, SSL_SESSION* session) {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(SSL_get_app_data(ssl));
  if (!ref) return 0;
  QuicSession* self = static_cast<QuicSession*>(ref->user_data);
  if (!self->conn_) return 0;
  uint8_t tp[4096];
  ngtcp2_ssize n = ngtcp2_conn_encode_0rtt_transport_params(self->conn_.get(),
                                                            tp, sizeof(tp));
  std::string params;
  if (n > 0) params.assign(reinterpret_cast<const char*>(tp), n);
  // Returning 1 takes the reference BoringSSL passed.
  self->context_->AddSession(self->SessionKey(),
                             bssl::UniquePtr<SSL_SESSION>(session),
                             std::move(params));
  return 1;
}

bool QuicSession::in_early_data() const {
  return early_data_offered_ && !handshake_completed_ && !closed_ && ssl_ &&
         SSL_in_early_data(ssl_.get());
}

int QuicSession::OnRecvCryptoData(ngtcp2_conn* conn,
                                  ngtcp2_encryption_level level,
                                  uint64_t offset, const uint8_t* data,
                                  size_t datalen, void* user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (level == NGTCP2_ENCRYPTION_LEVEL_INITIAL ||
      level == NGTCP2_ENCRYPTION_LEVEL_HANDSHAKE) {
    self->datagram_had_handshake_crypto_ = true;
  }
  if (SSL_provide_quic_data(
          self->ssl_.get(),
          ngtcp2_crypto_boringssl_from_ngtcp2_encryption_level(level), data,
          datalen) != 1) {
    return NGTCP2_ERR_CRYPTO;
  }
  return self->DriveHandshake();
}

int QuicSession::DriveHandshake() {
  // ngtcp2's own helper (ngtcp2_crypto_read_write_crypto_data) treats a
  // pending certificate verification as a failure; ours suspends the
  // handshake while the CertVerifier works, as SSLClientSocket does.
  SSL* ssl = ssl_.get();
  if (!ngtcp2_conn_get_handshake_completed(conn_.get())) {
    for (;;) {
      int rv = SSL_do_handshake(ssl);
      if (rv > 0) break;
      int err = SSL_get_error(ssl, rv);
      switch (err) {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE:
          return 0;
        case SSL_ERROR_WANT_CERTIFICATE_VERIFY:
          StartVerify();
          return 0;
        case SSL_ERROR_EARLY_DATA_REJECTED: {
          // The server declined 0-RTT (its ServerHello / EncryptedExtensions
          // say so): ngtcp2 drops the early streams (its callback tells the
          // delegate to send them again) and the handshake goes on in 1-RTT.
          facts_.zero_rtt = "rejected";
          const char* reason =
              SSL_early_data_reason_string(SSL_get_early_data_reason(ssl));
          facts_.zero_rtt_reason = reason ? reason : "";
          SSL_reset_early_data_reject(ssl);
          if (ngtcp2_conn_tls_early_data_rejected(conn_.get()) != 0)
            return NGTCP2_ERR_CALLBACK_FAILURE;
          continue;
        }
        default:
          ERR_clear_error();
          return NGTCP2_ERR_CRYPTO;
      }
    }
    // A client in early data has sent its ClientHello and may write 0-RTT;
    // the handshake itself is not done.
    if (SSL_in_early_data(ssl)) return 0;
    ngtcp2_conn_tls_handshake_completed(conn_.get());
  }
  // NewSessionTicket and other post-handshake messages.
  int rv = SSL_process_quic_post_handshake(ssl);
  if (rv != 1) {
    int err = SSL_get_error(ssl, rv);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
      ERR_clear_error();
      return NGTCP2_ERR_CRYPTO;
    }
  }
  return 0;
}

void QuicSession::StartVerify() {
  if (verify_started_) return;
  verify_started_ = true;
  CertVerifyParams params;
  if (const STACK_OF(CRYPTO_BUFFER)* chain =
          SSL_get0_peer_certificates(ssl_.get())) {
    for (size_t i = 0; i < sk_CRYPTO_BUFFER_num(chain); ++i) {
      const CRYPTO_BUFFER* buf = sk_CRYPTO_BUFFER_value(chain, i);
      params.chain_der.emplace_back(
          reinterpret_cast<const char*>(CRYPTO_BUFFER_data(buf)),
          CRYPTO_BUFFER_len(buf));
    }
  }
  ssl_info_.peer_cert_count = static_cast<int>(params.chain_der.size());
  params.hostname = params_.host;
  params.now = absl::Now();
  const uint8_t* ocsp = nullptr;
  size_t ocsp_len = 0;
  SSL_get0_ocsp_response(ssl_.get(), &ocsp, &ocsp_len);
  if (ocsp_len > 0) {
    params.stapled_ocsp_response.assign(reinterpret_cast<const char*>(ocsp),
                                        ocsp_len);
  }
  int rv = context_->cert_verifier()->Verify(
      params, &ssl_info_.cert_verify,
      [weak = weak_factory_.GetWeakPtr()](int result) {
        if (weak) weak->OnVerifyDone(result);
      },
      &verify_request_);
  if (rv != ERR_IO_PENDING) {
    // Synchronous: finish from a task, outside ngtcp2's callback.
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
      if (weak) weak->OnVerifyDone(rv);
    });
  }
}

void QuicSession::OnVerifyDone(int result) {
  if (closed_) return;
  verify_request_.reset();
  ssl_info_.cert_verify.error = result;
  verify_done_ = true;
  // Resume the handshake either way: on failure BoringSSL sends the alert
  // VerifyCallback names and the connection closes with the certificate's
  // error.
  int rv = DriveHandshake();
  if (rv != 0) {
    HandleLibError(rv);
    return;
  }
  const bool was_completed = handshake_completed_;
  if (!handshake_completed_ && SSL_is_init_finished(ssl_.get()) &&
      !SSL_in_early_data(ssl_.get()) && !last_handshake_datagram_.empty()) {
    // ngtcp2 1.11 moves a client to "handshake completed" (its callback,
    // 1-RTT stream data allowed) only inside ngtcp2_conn_read_pkt. After a
    // verification that finished asynchronously, the server has nothing
    // more to send until it gets our Finished, so that would wait a round
    // trip for its HANDSHAKE_DONE: the last datagram goes in again (ngtcp2
    // discards its packets as duplicates) and the transition happens now,
    // the request leaving with our Finished.
    std::string again = std::move(last_handshake_datagram_);
    last_handshake_datagram_.clear();
    ngtcp2_path path = {
        {reinterpret_cast<sockaddr*>(&local_sa_), local_sa_len_},
        {reinterpret_cast<sockaddr*>(&peer_sa_), peer_sa_len_},
        nullptr,
    };
    ngtcp2_pkt_info pi = {};
    rv = ngtcp2_conn_read_pkt(conn_.get(), &path, &pi,
                              reinterpret_cast<const uint8_t*>(again.data()),
                              again.size(), NowNs());
    if (rv != 0) {
      HandleLibError(rv);
      return;
    }
  }
  MaybeCountHandshakeRtts();
  WriteAfterHandshakeStep(was_completed);
}

void QuicSession::WriteAfterHandshakeStep(bool was_completed) {
  if (!was_completed && handshake_completed_ && connect_callback_ &&
      !write_posted_) {
    // The handshake completed just now and Connect's callback is posted:
    // write after it and after the tasks it posts (Http3Session's other
    // waiters), two hops later, so the requests they submit leave with our
    // Finished in one pass (their ScheduleWrite calls find write_posted_
    // set). Written in a later pass, they would wait for ngtcp2's pacer,
    // which charges the next packet for the bytes of the last pass (the
    // Finished and a 1406-byte PMTU probe: ~10 ms at RTT 100 ms with a 12 KB
    // window; the packet world's quic_first).
    write_posted_ = true;
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (!weak) return;
      EventLoop::Current()->PostTask([weak] {
        if (!weak) return;
        weak->write_posted_ = false;
        weak->WritePackets();
      });
    });
    return;
  }
  WritePackets();
}

void QuicSession::MaybeCountHandshakeRtts() {
  if (!handshake_completed_ || facts_.handshake_rtts >= 0) return;
  if (facts_.zero_rtt == "accepted") {
    // The requests went in the first flight and were answered.
    facts_.handshake_rtts = 0;
    return;
  }
  int rtts = 1 + facts_.retries;
  // After a Retry the server has validated our address (RFC 9000 8.1.2).
  if (facts_.retries == 0 && beyond_allowance_received_ != 0) {
    bool waited = true;
    if (facts_.address_token == "sent") {
      // A token the server accepted lifts the limit: it waited only if the
      // datagrams beyond it came as an answer to our second flight would,
      // a round trip after it left.
      ngtcp2_conn_info info;
      ngtcp2_conn_get_conn_info(conn_.get(), &info);
      waited =
          second_flight_sent_ != 0 &&
          beyond_allowance_received_ >= second_flight_sent_ &&
          beyond_allowance_received_ - second_flight_sent_ >= info.min_rtt / 2;
    }
    if (waited) ++rtts;
  }
  facts_.handshake_rtts = rtts;
}

void QuicSession::FillSslInfo() {
  SSL* s = ssl_.get();
  ssl_info_.version = SSL_get_version(s);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(s))
    ssl_info_.cipher = SSL_CIPHER_standard_name(cipher);
  uint16_t group = SSL_get_curve_id(s);
  if (group != 0 && SSL_get_curve_name(group))
    ssl_info_.group = SSL_get_curve_name(group);
  const uint8_t* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(s, &alpn, &alpn_len);
  ssl_info_.alpn.assign(reinterpret_cast<const char*>(alpn), alpn_len);
  ssl_info_.resumed = SSL_session_reused(s);
  if (early_data_offered_) {
    if (SSL_early_data_accepted(s)) {
      facts_.zero_rtt = "accepted";
      facts_.zero_rtt_reason.clear();
    } else {
      facts_.zero_rtt = "rejected";
      if (facts_.zero_rtt_reason.empty()) {
        const char* reason =
            SSL_early_data_reason_string(SSL_get_early_data_reason(s));
        facts_.zero_rtt_reason = reason ? reason : "";
      }
    }
  }
  if (ssl_info_.resumed) ssl_info_.cert_verify = CertVerifyResult{OK};
}

// ngtcp2 callbacks ----------------------------------------------------------

int QuicSession::OnHandshakeCompletedCb(ngtcp2_conn* conn, void* user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  self->handshake_completed_ = true;
  self->facts_.handshake_done = self->params_.clock->NowTicks();
  self->FillSslInfo();
  if (self->ssl_info_.alpn != "h3" &&
      std::find(self->params_.alpn.begin(), self->params_.alpn.end(),
                self->ssl_info_.alpn) == self->params_.alpn.end()) {
    // BoringSSL's QUIC requires ALPN; a server that chose none is refused.
    self->SetApplicationCloseError(0x110 /* H3_VERSION_FALLBACK */,
                                   "the server negotiated no ALPN we offered");
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  self->last_handshake_datagram_.clear();
  self->last_handshake_datagram_.shrink_to_fit();
  if (self->delegate_) {
    int rv = self->delegate_->OnHandshakeCompleted();
    if (rv < 0) return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  if (self->connect_callback_) {
    EventLoop::Current()->PostTask([weak = self->weak_factory_.GetWeakPtr()] {
      if (weak) weak->RunConnectCallback(OK);
    });
  }
  return 0;
}

int QuicSession::OnTlsEarlyDataRejected(ngtcp2_conn* conn, void* user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (!self->early_data_offered_) return 0;  // nothing was sent early
  if (self->delegate_ && self->delegate_->OnEarlyDataRejected() < 0)
    return NGTCP2_ERR_CALLBACK_FAILURE;
  return 0;
}

int QuicSession::OnRecvStreamData(ngtcp2_conn* conn, uint32_t flags,
                                  int64_t stream_id, uint64_t offset,
                                  const uint8_t* data, size_t datalen,
                                  void* user_data, void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (!self->delegate_) return NGTCP2_ERR_CALLBACK_FAILURE;
  int64_t consumed = self->delegate_->OnStreamData(
      stream_id, data, datalen, flags & NGTCP2_STREAM_DATA_FLAG_FIN);
  if (consumed < 0) return NGTCP2_ERR_CALLBACK_FAILURE;
  if (consumed > 0) {
    ngtcp2_conn_extend_max_stream_offset(conn, stream_id, consumed);
    ngtcp2_conn_extend_max_offset(conn, consumed);
  }
  return 0;
}

int QuicSession::OnAckedStreamDataOffset(ngtcp2_conn* conn, int64_t stream_id,
                                         uint64_t offset, uint64_t datalen,
                                         void* user_data,
                                         void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_ &&
      self->delegate_->OnStreamDataAcked(stream_id, datalen) < 0) {
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  return 0;
}

int QuicSession::OnStreamClose(ngtcp2_conn* conn, uint32_t flags,
                               int64_t stream_id, uint64_t app_error_code,
                               void* user_data, void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_ &&
      self->delegate_->OnStreamClosed(
          stream_id, flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET,
          app_error_code) < 0) {
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  return 0;
}

int QuicSession::OnStreamResetCb(ngtcp2_conn* conn, int64_t stream_id,
                                 uint64_t final_size, uint64_t app_error_code,
                                 void* user_data, void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_ &&
      self->delegate_->OnStreamReset(stream_id, app_error_code) < 0) {
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  return 0;
}

int QuicSession::OnStreamStopSendingCb(ngtcp2_conn* conn, int64_t stream_id,
                                       uint64_t app_error_code, void* user_data,
                                       void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_ &&
      self->delegate_->OnStreamStopSending(stream_id, app_error_code) < 0) {
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  return 0;
}

int QuicSession::OnExtendMaxLocalStreamsBidi(ngtcp2_conn* conn,
                                             uint64_t max_streams,
                                             void* user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_) self->delegate_->OnMoreStreamsAllowed();
  return 0;
}

int QuicSession::OnExtendMaxStreamData(ngtcp2_conn* conn, int64_t stream_id,
                                       uint64_t max_data, void* user_data,
                                       void* stream_user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  if (self->delegate_ && self->delegate_->OnStreamUnblocked(stream_id) < 0)
    return NGTCP2_ERR_CALLBACK_FAILURE;
  return 0;
}

int QuicSession::OnRecvStatelessReset(ngtcp2_conn* conn,
                                      const ngtcp2_pkt_stateless_reset* sr,
                                      void* user_data) {
  // ngtcp2 enters the draining state; read_pkt returns
  // NGTCP2_ERR_DRAINING and ProcessDatagram reports it. Nothing to do here
  // but remember why.
  QuicSession* self = static_cast<QuicSession*>(user_data);
  self->facts_.close_reason = "the server sent a stateless reset";
  self->error_ = ERR_QUIC_STATELESS_RESET;
  return 0;
}

int QuicSession::OnRecvVersionNegotiation(ngtcp2_conn* conn,
                                          const ngtcp2_pkt_hd* hd,
                                          const uint32_t* sv, size_t nsv,
                                          void* user_data) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  std::string offered;
  for (size_t i = 0; i < nsv && i < 8; ++i)
    absl::StrAppend(&offered, i ? ", " : "", absl::StrFormat("0x%08x", sv[i]));
  self->facts_.close_reason =
      absl::StrCat("version negotiation: the server offers ",
                   offered.empty() ? "nothing" : offered, ", not QUIC v1");
  return 0;
}

int QuicSession::OnRecvNewToken(ngtcp2_conn* conn, const uint8_t* token,
                                size_t tokenlen, void* user_data) {
  // ngtcp2 has checked the frame (a client receives it only in 1-RTT, and
  // an empty token is a FRAME_ENCODING_ERROR); the context bounds the rest.
  QuicSession* self = static_cast<QuicSession*>(user_data);
  self->context_->AddToken(
      self->SessionKey(),
      std::string(reinterpret_cast<const char*>(token), tokenlen), absl::Now());
  return 0;
}

int QuicSession::OnRecvRetry(ngtcp2_conn* conn, const ngtcp2_pkt_hd* hd,
                             void* user_data) {
  // ngtcp2 accepts at most one Retry per connection and checks its
  // integrity tag before this is called; the Initial goes again with the
  // Retry's token, a round trip more.
  QuicSession* self = static_cast<QuicSession*>(user_data);
  ++self->facts_.retries;
  return ngtcp2_crypto_recv_retry_cb(conn, hd, user_data);
}

void QuicSession::Rand(uint8_t* dest, size_t destlen,
                       const ngtcp2_rand_ctx* rand_ctx) {
  RAND_bytes(dest, destlen);
}

int QuicSession::GetNewConnectionId(ngtcp2_conn* conn, ngtcp2_cid* cid,
                                    uint8_t* token, size_t cidlen,
                                    void* user_data) {
  if (RAND_bytes(cid->data, cidlen) != 1) return NGTCP2_ERR_CALLBACK_FAILURE;
  cid->datalen = cidlen;
  if (RAND_bytes(token, NGTCP2_STATELESS_RESET_TOKENLEN) != 1)
    return NGTCP2_ERR_CALLBACK_FAILURE;
  return 0;
}

void QuicSession::QlogWrite(void* user_data, uint32_t flags, const void* data,
                            size_t datalen) {
  QuicSession* self = static_cast<QuicSession*>(user_data);
  self->packet_counter_.OnQlogRecord(
      absl::string_view(static_cast<const char*>(data), datalen));
}

// Connection ----------------------------------------------------------------

int QuicSession::InitConnection() {
  ngtcp2_callbacks callbacks = {};
  callbacks.client_initial = ngtcp2_crypto_client_initial_cb;
  callbacks.recv_crypto_data = &QuicSession::OnRecvCryptoData;
  callbacks.handshake_completed = &QuicSession::OnHandshakeCompletedCb;
  callbacks.recv_version_negotiation = &QuicSession::OnRecvVersionNegotiation;
  callbacks.encrypt = ngtcp2_crypto_encrypt_cb;
  callbacks.decrypt = ngtcp2_crypto_decrypt_cb;
  callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb;
  callbacks.recv_stream_data = &QuicSession::OnRecvStreamData;
  callbacks.acked_stream_data_offset = &QuicSession::OnAckedStreamDataOffset;
  callbacks.stream_close = &QuicSession::OnStreamClose;
  callbacks.recv_stateless_reset = &QuicSession::OnRecvStatelessReset;
  callbacks.recv_retry = &QuicSession::OnRecvRetry;
  callbacks.recv_new_token = &QuicSession::OnRecvNewToken;
  callbacks.extend_max_local_streams_bidi =
      &QuicSession::OnExtendMaxLocalStreamsBidi;
  callbacks.rand = &QuicSession::Rand;
  callbacks.get_new_connection_id = &QuicSession::GetNewConnectionId;
  callbacks.update_key = ngtcp2_crypto_update_key_cb;
  callbacks.stream_reset = &QuicSession::OnStreamResetCb;
  callbacks.extend_max_stream_data = &QuicSession::OnExtendMaxStreamData;
  callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
  callbacks.delete_crypto_cipher_ctx =
      ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
  callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
  callbacks.stream_stop_sending = &QuicSession::OnStreamStopSendingCb;
  callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
  callbacks.tls_early_data_rejected = &QuicSession::OnTlsEarlyDataRejected;

  ngtcp2_cid dcid, scid;
  dcid.datalen = 18;  // RFC 9000 7.2: at least 8 bytes, unpredictable
  scid.datalen = kCidLength;
  if (RAND_bytes(dcid.data, dcid.datalen) != 1 ||
      RAND_bytes(scid.data, scid.datalen) != 1) {
    return ERR_UNEXPECTED;
  }

  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  settings.initial_ts = NowNs();
  settings.max_tx_udp_payload_size = kMaxSendSize;
  settings.handshake_timeout = ToNs(params_.handshake_timeout);
  settings.qlog_write = &QuicSession::QlogWrite;
  // Auto-tuning of the receive windows stays within what we grant.
  settings.max_window = params_.session_window;
  settings.max_stream_window = params_.stream_window;
  // A token from the server's NEW_TOKEN frame on an earlier connection
  // (RFC 9000 8.1.3), used once: the server may validate our address at
  // once and send its whole first flight.
  address_token_ = context_->TakeToken(SessionKey(), absl::Now());
  if (!address_token_.empty()) {
    settings.token = reinterpret_cast<const uint8_t*>(address_token_.data());
    settings.tokenlen = address_token_.size();
    facts_.address_token = "sent";
  }

  ngtcp2_transport_params tp;
  ngtcp2_transport_params_default(&tp);
  tp.initial_max_stream_data_bidi_local = params_.stream_window;
  tp.initial_max_stream_data_bidi_remote = 0;   // the server opens none
  tp.initial_max_stream_data_uni = 256 * 1024;  // control and QPACK streams
  tp.initial_max_data = params_.session_window;
  tp.initial_max_streams_bidi = 0;
  tp.initial_max_streams_uni = params_.max_server_uni_streams;
  tp.max_idle_timeout = ToNs(params_.idle_timeout);
  tp.active_connection_id_limit = 2;

  ngtcp2_path path = {
      {reinterpret_cast<sockaddr*>(&local_sa_), local_sa_len_},
      {reinterpret_cast<sockaddr*>(&peer_sa_), peer_sa_len_},
      nullptr,
  };
  ngtcp2_conn* conn = nullptr;
  int rv =
      ngtcp2_conn_client_new(&conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1,
                             &callbacks, &settings, &tp, nullptr, this);
  if (rv != 0) {
    error_detail_ =
        absl::StrCat("ngtcp2_conn_client_new: ", ngtcp2_strerror(rv));
    return ERR_UNEXPECTED;
  }
  conn_.reset(conn);
  ngtcp2_conn_set_tls_native_handle(conn, ssl_.get());
  if (!early_transport_params_.empty() &&
      ngtcp2_conn_decode_and_set_0rtt_transport_params(
          conn,
          reinterpret_cast<const uint8_t*>(early_transport_params_.data()),
          early_transport_params_.size()) != 0) {
    // Parameters we cannot use: resume without early data.
    SSL_set_early_data_enabled(ssl_.get(), 0);
    early_transport_params_.clear();
  }
  return OK;
}

int QuicSession::Connect(const IPEndPoint& peer,
                         CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  peer_ = peer;
  facts_.connect_start = params_.clock->NowTicks();
  facts_.version = NGTCP2_PROTO_VER_V1;
  int rv = socket_->Connect(peer);
  if (rv != OK) {
    error_detail_ = absl::StrCat("UDP socket to ", peer.ToString(), ": ",
                                 ErrorToShortString(rv));
    return rv;
  }
  rv = socket_->GetLocalAddress(&local_);
  if (rv != OK) return rv;
  peer_sa_len_ = peer_.ToSockAddr(&peer_sa_);
  local_sa_len_ = local_.ToSockAddr(&local_sa_);
  rv = InitTls();
  if (rv != OK) return rv;
  rv = InitConnection();
  if (rv != OK) return rv;
  connect_callback_ = std::move(callback);
  WritePackets();  // the Initial (ClientHello)
  if (!closed_ && SSL_in_early_data(ssl_.get())) {
    // BoringSSL offered early data with the ticket: 0-RTT keys are in.
    early_data_offered_ = true;
    facts_.zero_rtt = "offered";
  }
  if (closed_) {
    connect_callback_ = nullptr;
    return error_;
  }
  if (early_data_offered_) {
    // The first read from a task: the caller's replay-safe requests go in
    // 0-RTT before anything the server answers is processed (on loopback
    // the whole handshake could otherwise finish inside Connect).
    read_posted_ = true;
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (!weak) return;
      weak->read_posted_ = false;
      weak->DoRead();
    });
    return ERR_IO_PENDING;
  }
  DoRead();
  if (closed_) {
    connect_callback_ = nullptr;
    return error_;
  }
  return ERR_IO_PENDING;
}

void QuicSession::RunConnectCallback(int rv) {
  CompletionOnceCallback cb = std::move(connect_callback_);
  connect_callback_ = nullptr;
  if (cb) std::move(cb)(rv);
}

int QuicSession::OpenBidiStream(int64_t* stream_id) {
  if (closed_) return error_;
  int rv = ngtcp2_conn_open_bidi_stream(conn_.get(), stream_id, nullptr);
  if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return ERR_IO_PENDING;
  return rv == 0 ? OK : ERR_QUIC_PROTOCOL_ERROR;
}

int QuicSession::OpenUniStream(int64_t* stream_id) {
  if (closed_) return error_;
  int rv = ngtcp2_conn_open_uni_stream(conn_.get(), stream_id, nullptr);
  if (rv == NGTCP2_ERR_STREAM_ID_BLOCKED) return ERR_IO_PENDING;
  return rv == 0 ? OK : ERR_QUIC_PROTOCOL_ERROR;
}

void QuicSession::ExtendStreamWindow(int64_t stream_id, uint64_t len) {
  if (closed_ || len == 0) return;
  ngtcp2_conn_extend_max_stream_offset(conn_.get(), stream_id, len);
  ngtcp2_conn_extend_max_offset(conn_.get(), len);
  ScheduleWrite();  // MAX_STREAM_DATA / MAX_DATA go out
}

void QuicSession::ShutdownStream(int64_t stream_id, uint64_t app_error) {
  if (closed_) return;
  ngtcp2_conn_shutdown_stream(conn_.get(), 0, stream_id, app_error);
  ScheduleWrite();
}

void QuicSession::ShutdownStreamRead(int64_t stream_id, uint64_t app_error) {
  if (closed_) return;
  ngtcp2_conn_shutdown_stream_read(conn_.get(), 0, stream_id, app_error);
  ScheduleWrite();
}

void QuicSession::ShutdownStreamWrite(int64_t stream_id, uint64_t app_error) {
  if (closed_) return;
  ngtcp2_conn_shutdown_stream_write(conn_.get(), 0, stream_id, app_error);
  ScheduleWrite();
}

void QuicSession::ExtendMaxServerUniStreams(uint64_t n) {
  if (closed_) return;
  ngtcp2_conn_extend_max_streams_uni(conn_.get(), n);
}

void QuicSession::ScheduleWrite() {
  if (closed_ || write_posted_) return;
  write_posted_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->write_posted_ = false;
    weak->WritePackets();
  });
}

void QuicSession::SetApplicationCloseError(uint64_t app_error,
                                           const std::string& detail) {
  app_close_set_ = true;
  app_close_code_ = app_error;
  app_close_detail_ = detail;
}

void QuicSession::CloseWithApplicationError(uint64_t app_error, int error,
                                            const std::string& detail) {
  if (closed_) return;
  SetApplicationCloseError(app_error, detail);
  Close(error, absl::StrCat("we closed: ", detail), /*send_close=*/true);
}

// I/O -----------------------------------------------------------------------

void QuicSession::DoRead() {
  if (read_pending_ || closed_) return;
  for (int i = 0; i < kMaxDatagramsPerTurn; ++i) {
    int rv = socket_->Read(read_buf_, kMaxReadSize, [this](int rv) {
      read_pending_ = false;
      OnReadDone(rv);
    });
    if (rv == ERR_IO_PENDING) {
      read_pending_ = true;
      return;
    }
    if (rv < 0) {
      // ICMP port unreachable on a connected socket: nobody serves UDP
      // there. Other errors end the connection too.
      Close(rv,
            rv == ERR_CONNECTION_REFUSED
                ? absl::StrCat("UDP to ", peer_.ToString(),
                               " refused (ICMP port unreachable)")
                : absl::StrCat("UDP read failed: ", ErrorToShortString(rv)),
            /*send_close=*/false);
      return;
    }
    if (!ProcessDatagram(rv)) return;
  }
  // Yield to the loop, then read on.
  if (read_posted_) return;
  read_posted_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->read_posted_ = false;
    weak->DoRead();
  });
}

void QuicSession::OnReadDone(int rv) {
  if (closed_) return;
  if (rv < 0) {
    Close(rv,
          rv == ERR_CONNECTION_REFUSED
              ? absl::StrCat("UDP to ", peer_.ToString(),
                             " refused (ICMP port unreachable)")
              : absl::StrCat("UDP read failed: ", ErrorToShortString(rv)),
          /*send_close=*/false);
    return;
  }
  if (!ProcessDatagram(rv)) return;
  DoRead();
}

bool QuicSession::ProcessDatagram(int len) {
  ngtcp2_path path = {
      {reinterpret_cast<sockaddr*>(&local_sa_), local_sa_len_},
      {reinterpret_cast<sockaddr*>(&peer_sa_), peer_sa_len_},
      nullptr,
  };
  ngtcp2_pkt_info pi = {};
  const ngtcp2_tstamp now = NowNs();
  received_any_ = true;
  const bool was_completed = handshake_completed_;
  if (!was_completed) last_handshake_datagram_.assign(read_buf_->data(), len);
  datagram_had_handshake_crypto_ = false;
  int rv = ngtcp2_conn_read_pkt(conn_.get(), &path, &pi,
                                reinterpret_cast<uint8_t*>(read_buf_->data()),
                                static_cast<size_t>(len), now);
  if (!was_completed && datagram_had_handshake_crypto_ &&
      facts_.handshake_rtts < 0) {
    facts_.server_handshake_bytes += static_cast<uint64_t>(len);
    if (beyond_allowance_received_ == 0 &&
        facts_.server_handshake_bytes > 3 * facts_.first_flight_bytes) {
      beyond_allowance_received_ = now;
    }
  }
  if (rv != 0) {
    HandleLibError(rv);
    return !closed_;
  }
  MaybeCountHandshakeRtts();
  WriteAfterHandshakeStep(was_completed);
  return !closed_;
}

bool QuicSession::SendDatagram(size_t len) {
  // Our first flight: what the server's anti-amplification allowance is 3x
  // of until it validates our address.
  if (!received_any_) {
    facts_.first_flight_bytes += len;
  } else if (second_flight_sent_ == 0) {
    second_flight_sent_ = NowNs();
  }
  int rv = socket_->Write(send_buf_, static_cast<int>(len), [this](int rv) {
    write_pending_ = false;
    OnWriteDone(rv);
  });
  if (rv == ERR_IO_PENDING) {
    write_pending_ = true;
    // ngtcp2 treats the packet as sent; the buffer stays the socket's
    // until the write completes.
    send_buf_ = std::make_shared<IOBuffer>(kMaxSendSize);
    return false;
  }
  if (rv < 0) {
    Close(rv, absl::StrCat("UDP write failed: ", ErrorToShortString(rv)),
          /*send_close=*/false);
    return false;
  }
  return true;
}

void QuicSession::OnWriteDone(int rv) {
  if (closed_) return;
  if (rv < 0) {
    Close(rv, absl::StrCat("UDP write failed: ", ErrorToShortString(rv)),
          /*send_close=*/false);
    return;
  }
  WritePackets();
}

void QuicSession::WritePackets() {
  if (closed_ || write_pending_ || in_write_ || !conn_) return;
  in_write_ = true;
  ngtcp2_path_storage ps;
  ngtcp2_path_storage_zero(&ps);
  ngtcp2_pkt_info pi;
  const ngtcp2_tstamp ts = NowNs();
  int datagrams = 0;
  bool more = false;
  for (;;) {
    int64_t stream_id = -1;
    bool fin = false;
    ngtcp2_vec vec[16];
    int64_t veccnt = 0;
    // Stream data once the handshake completed, or before in 0-RTT packets
    // (the delegate offers only replay-safe requests then).
    if (delegate_ && (handshake_completed_ || in_early_data()) &&
        ngtcp2_conn_get_max_data_left(conn_.get()) > 0) {
      veccnt = delegate_->GetStreamData(&stream_id, &fin, vec, 16);
      if (veccnt < 0) {
        in_write_ = false;
        Close(static_cast<int>(veccnt), "the HTTP/3 layer failed to write",
              /*send_close=*/true);
        return;
      }
    }
    uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
    if (fin) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
    ngtcp2_ssize ndatalen = -1;
    ngtcp2_ssize n = ngtcp2_conn_writev_stream(
        conn_.get(), &ps.path, &pi,
        reinterpret_cast<uint8_t*>(send_buf_->data()), send_buf_->capacity(),
        &ndatalen, flags, stream_id, vec, static_cast<size_t>(veccnt), ts);
    if (n < 0) {
      if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED) {
        delegate_->OnStreamWriteBlocked(stream_id);
        continue;
      }
      if (n == NGTCP2_ERR_STREAM_SHUT_WR) {
        delegate_->OnStreamWriteShut(stream_id);
        continue;
      }
      if (n == NGTCP2_ERR_WRITE_MORE) {
        if (delegate_->OnStreamDataWritten(stream_id, ndatalen) < 0) {
          in_write_ = false;
          HandleLibError(NGTCP2_ERR_CALLBACK_FAILURE);
          return;
        }
        continue;
      }
      in_write_ = false;
      HandleLibError(static_cast<int>(n));
      return;
    }
    if (ndatalen >= 0 && stream_id >= 0 &&
        delegate_->OnStreamDataWritten(stream_id, ndatalen) < 0) {
      in_write_ = false;
      HandleLibError(NGTCP2_ERR_CALLBACK_FAILURE);
      return;
    }
    if (n == 0) break;  // nothing more now (or pacing holds it back)
    if (!SendDatagram(static_cast<size_t>(n))) {
      in_write_ = false;
      if (!closed_) UpdatePacing(ts);
      ArmTimer();
      return;
    }
    if (++datagrams >= kMaxDatagramsPerTurn) {
      more = true;
      break;
    }
  }
  UpdatePacing(ts);
  in_write_ = false;
  ArmTimer();
  if (more) ScheduleWrite();
}

void QuicSession::UpdatePacing(ngtcp2_tstamp ts) {
  // The handshake's datagrams are one unpaced burst (as Chromium's QUIC
  // sends its first ten packets unpaced): ngtcp2's pacer charges the next
  // packet for the bytes of the last pass, the padded 1200-byte Initial ACK
  // included, which would hold our Finished and the first request ~7 ms at
  // RTT 100 ms with a 12 KB window. Their bytes are charged (ngtcp2 keeps
  // counting) with the pass that completes the handshake, so pacing holds
  // the packets after the first request instead.
  if (!handshake_completed_) return;
  ngtcp2_conn_update_pkt_tx_time(conn_.get(), ts);
}

void QuicSession::ArmTimer() {
  if (closed_ || !conn_) return;
  ngtcp2_tstamp expiry = ngtcp2_conn_get_expiry(conn_.get());
  ngtcp2_tstamp now = NowNs();
  absl::Duration delay =
      expiry <= now ? absl::ZeroDuration() : absl::Nanoseconds(expiry - now);
  timer_.Start(delay, [this] { OnTimer(); });
}

void QuicSession::OnTimer() {
  if (closed_) return;
  int rv = ngtcp2_conn_handle_expiry(conn_.get(), NowNs());
  if (rv != 0) {
    HandleLibError(rv);
    return;
  }
  WritePackets();
}

// Ends ----------------------------------------------------------------------

void QuicSession::CloseFromPeer() {
  const ngtcp2_ccerr* ccerr = ngtcp2_conn_get_ccerr(conn_.get());
  std::string reason(reinterpret_cast<const char*>(ccerr->reason),
                     ccerr->reasonlen);
  if (reason.size() > 200) reason.resize(200);
  const std::string with_reason =
      reason.empty() ? "" : absl::StrCat(" (\"", reason, "\")");
  switch (ccerr->type) {
    case NGTCP2_CCERR_TYPE_TRANSPORT:
      if (ccerr->error_code == NGTCP2_NO_ERROR) {
        Close(ERR_QUIC_PEER_CLOSED,
              absl::StrCat("the server closed the connection: NO_ERROR",
                           with_reason),
              false);
      } else {
        Close(ccerr->error_code >= 0x100 && ccerr->error_code <= 0x1ff &&
                      !handshake_completed_
                  ? ERR_QUIC_HANDSHAKE_FAILED
                  : ERR_QUIC_PROTOCOL_ERROR,
              absl::StrCat("the server closed the connection: transport error ",
                           QuicTransportErrorName(ccerr->error_code),
                           with_reason),
              false);
      }
      return;
    case NGTCP2_CCERR_TYPE_APPLICATION:
      Close(ERR_QUIC_PEER_CLOSED,
            absl::StrFormat("the server closed the connection: application "
                            "error 0x%x%s",
                            ccerr->error_code, with_reason),
            false);
      return;
    default:
      Close(ERR_QUIC_PEER_CLOSED, "the server closed the connection", false);
      return;
  }
}

void QuicSession::HandleLibError(int liberr) {
  if (closed_) return;
  switch (liberr) {
    case NGTCP2_ERR_DRAINING:
      if (error_ == ERR_QUIC_STATELESS_RESET) {
        Close(ERR_QUIC_STATELESS_RESET, facts_.close_reason, false);
      } else {
        CloseFromPeer();
      }
      return;
    case NGTCP2_ERR_CLOSING:
      Close(error_ != OK ? error_ : ERR_QUIC_PROTOCOL_ERROR,
            "the connection is closing", false);
      return;
    case NGTCP2_ERR_IDLE_CLOSE:
      Close(ERR_QUIC_IDLE_TIMEOUT,
            absl::StrCat("idle timeout: no packet from ", peer_.ToString(),
                         " for ", absl::FormatDuration(EffectiveIdleTimeout())),
            false);
      return;
    case NGTCP2_ERR_HANDSHAKE_TIMEOUT:
      Close(
          ERR_QUIC_HANDSHAKE_TIMEOUT,
          absl::StrCat(
              "no QUIC handshake with ", peer_.ToString(), " within ",
              absl::FormatDuration(params_.handshake_timeout),
              packet_counter_.counts().received == 0 ? " (no UDP answer)" : ""),
          false);
      return;
    case NGTCP2_ERR_RECV_VERSION_NEGOTIATION:
    case NGTCP2_ERR_VERSION_NEGOTIATION_FAILURE:
      Close(ERR_QUIC_VERSION_NEGOTIATION_FAILED,
            facts_.close_reason.empty()
                ? "version negotiation failed: no common QUIC version"
                : facts_.close_reason,
            false);
      return;
    case NGTCP2_ERR_DROP_CONN:
      Close(ERR_QUIC_PROTOCOL_ERROR, "ngtcp2 dropped the connection", false);
      return;
    default:
      break;
  }
  // Our side closes: a CONNECTION_CLOSE with the error.
  int error = ERR_QUIC_PROTOCOL_ERROR;
  std::string reason;
  if (liberr == NGTCP2_ERR_CRYPTO || !handshake_completed_) {
    const uint8_t alert = ngtcp2_conn_get_tls_alert(conn_.get());
    if (verify_done_ && ssl_info_.cert_verify.error != OK) {
      error = ssl_info_.cert_verify.error;
      reason = ssl_info_.cert_verify.detail;
    } else if (liberr == NGTCP2_ERR_CRYPTO) {
      error = ERR_QUIC_HANDSHAKE_FAILED;
      reason =
          absl::StrCat("TLS handshake failed (alert ", AlertName(alert), ")");
    } else if (app_close_set_) {
      error = ERR_QUIC_HANDSHAKE_FAILED;
      reason = app_close_detail_;
    }
  }
  if (reason.empty()) {
    reason = app_close_set_ ? app_close_detail_
                            : absl::StrCat("ngtcp2: ", ngtcp2_strerror(liberr));
  }
  if (app_close_set_ && error == ERR_QUIC_PROTOCOL_ERROR &&
      handshake_completed_) {
    // The HTTP/3 layer failed: its error, set by the delegate, decides.
    error = error_ != OK ? error_ : ERR_HTTP3_PROTOCOL_ERROR;
  }
  ngtcp2_ccerr ccerr;
  ngtcp2_ccerr_default(&ccerr);
  if (app_close_set_) {
    ngtcp2_ccerr_set_application_error(&ccerr, app_close_code_, nullptr, 0);
  } else if (liberr == NGTCP2_ERR_CRYPTO) {
    ngtcp2_ccerr_set_tls_alert(&ccerr, ngtcp2_conn_get_tls_alert(conn_.get()),
                               nullptr, 0);
  } else {
    ngtcp2_ccerr_set_liberr(&ccerr, liberr, nullptr, 0);
  }
  // Send the CONNECTION_CLOSE ngtcp2 makes for it (one datagram).
  ngtcp2_path_storage ps;
  ngtcp2_path_storage_zero(&ps);
  ngtcp2_pkt_info pi;
  if (!write_pending_) {
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(
        conn_.get(), &ps.path, &pi,
        reinterpret_cast<uint8_t*>(send_buf_->data()), send_buf_->capacity(),
        &ccerr, NowNs());
    if (n > 0) socket_->Write(send_buf_, static_cast<int>(n), [](int) {});
  }
  Close(error, absl::StrCat("we closed: ", reason), /*send_close=*/false);
}

void QuicSession::Close(int error, const std::string& reason, bool send_close) {
  if (closed_) return;
  if (send_close && conn_ && !write_pending_ &&
      !ngtcp2_conn_in_closing_period(conn_.get()) &&
      !ngtcp2_conn_in_draining_period(conn_.get())) {
    ngtcp2_ccerr ccerr;
    ngtcp2_ccerr_default(&ccerr);
    if (app_close_set_) {
      ngtcp2_ccerr_set_application_error(&ccerr, app_close_code_, nullptr, 0);
    }
    ngtcp2_path_storage ps;
    ngtcp2_path_storage_zero(&ps);
    ngtcp2_pkt_info pi;
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(
        conn_.get(), &ps.path, &pi,
        reinterpret_cast<uint8_t*>(send_buf_->data()), send_buf_->capacity(),
        &ccerr, NowNs());
    if (n > 0) socket_->Write(send_buf_, static_cast<int>(n), [](int) {});
  }
  closed_ = true;
  error_ = error;
  error_detail_ = reason;
  facts_.close_reason = reason;
  timer_.Stop();
  verify_request_.reset();
  socket_->Close();
  read_pending_ = false;
  write_pending_ = false;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), error] {
    if (!weak) return;
    if (weak->connect_callback_) {
      weak->RunConnectCallback(error);
      return;
    }
    if (weak->delegate_) weak->delegate_->OnSessionClosed(error);
  });
}

absl::Duration QuicSession::EffectiveIdleTimeout() const {
  // RFC 9000 10.1: the smaller of the two max_idle_timeout values (0: none).
  absl::Duration ours = params_.idle_timeout;
  const ngtcp2_transport_params* theirs =
      conn_ ? ngtcp2_conn_get_remote_transport_params(conn_.get()) : nullptr;
  if (theirs && theirs->max_idle_timeout > 0) {
    absl::Duration d = absl::Nanoseconds(theirs->max_idle_timeout);
    if (ours == absl::ZeroDuration() || d < ours) return d;
  }
  return ours;
}

QuicConnectionFacts QuicSession::facts() const {
  QuicConnectionFacts f = facts_;
  f.packets = packet_counter_.counts();
  if (conn_) {
    ngtcp2_conn_info info;
    ngtcp2_conn_get_conn_info(conn_.get(), &info);
    f.smoothed_rtt = absl::Nanoseconds(info.smoothed_rtt);
    f.min_rtt = absl::Nanoseconds(info.min_rtt);
    f.version = ngtcp2_conn_get_negotiated_version(conn_.get());
    if (f.version == 0) f.version = facts_.version;
  }
  return f;
}

}  // namespace net
