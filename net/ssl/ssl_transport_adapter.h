// SSLTransportAdapter moves TLS records between a BoringSSL BIO pair and a
// StreamSocket, asynchronously. SSLClientSocket and SSLServerSocket each own
// one; the SSL object reads and writes the adapter's ssl_bio(), and the
// adapter reads ahead from and flushes to the transport.
//
// The transport is not owned and must outlive the adapter. The delegate is
// told whenever an async transport read or write completes, so the owner can
// retry whatever TLS operation was blocked.

#ifndef NET_SSL_SSL_TRANSPORT_ADAPTER_H_
#define NET_SSL_SSL_TRANSPORT_ADAPTER_H_

#include <openssl/bio.h>

#include <memory>
#include <string>

#include "net/base/io_buffer.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"

namespace net {

class SSLTransportAdapter {
 public:
  class Delegate {
   public:
    virtual ~Delegate() = default;
    virtual void OnTransportIOComplete() = 0;
  };

  SSLTransportAdapter(StreamSocket* transport, Delegate* delegate);
  ~SSLTransportAdapter();
  SSLTransportAdapter(const SSLTransportAdapter&) = delete;
  SSLTransportAdapter& operator=(const SSLTransportAdapter&) = delete;

  // ssl_bio returns the SSL-side BIO, with a new reference for SSL_set_bio.
  BIO* TakeSSLBio();

  // Pump flushes pending TLS output to the transport and reads ahead into
  // the BIO. Returns true if bytes moved synchronously (so a blocked TLS
  // operation may now make progress).
  bool Pump();

  // The transport read reached end of stream.
  bool read_eof() const { return read_eof_; }
  // The first transport error (< 0), or OK.
  int read_error() const { return read_error_; }
  int write_error() const { return write_error_; }
  // Bytes received from the transport but not yet consumed by SSL.
  size_t buffered_input() const;
  // Whether all TLS output has been handed to the transport.
  bool output_flushed() const;

  // The first bytes received from the transport (up to 16), to tell a peer
  // that does not speak TLS at all from a TLS failure.
  const std::string& first_bytes_received() const { return first_bytes_; }

  int64_t bytes_received() const { return bytes_received_; }
  int64_t bytes_sent() const { return bytes_sent_; }

 private:
  bool DoSend();
  bool DoRecv();
  void HandleRecvResult(int rv);
  void OnSendComplete(int rv);
  void OnRecvComplete(int rv);

  StreamSocket* const transport_;
  Delegate* const delegate_;
  bssl::UniquePtr<BIO> ssl_bio_;
  bssl::UniquePtr<BIO> net_bio_;

  std::shared_ptr<DrainableIOBuffer> send_buf_;
  bool send_pending_ = false;
  std::shared_ptr<IOBuffer> recv_buf_;
  bool recv_pending_ = false;
  bool read_eof_ = false;
  int read_error_ = OK;
  int write_error_ = OK;
  std::string first_bytes_;
  int64_t bytes_received_ = 0;
  int64_t bytes_sent_ = 0;
  WeakPtrFactory<SSLTransportAdapter> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_TRANSPORT_ADAPTER_H_
