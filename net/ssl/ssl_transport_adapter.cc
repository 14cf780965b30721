#include "net/ssl/ssl_transport_adapter.h"

#include <algorithm>
#include <string>

namespace net {
namespace {

// One TLS record plus header; the BIO pair holds a little more.
constexpr size_t kBufferSize = 17 * 1024;

}  // namespace

SSLTransportAdapter::SSLTransportAdapter(StreamSocket* transport,
                                         Delegate* delegate)
    : transport_(transport), delegate_(delegate) {
  BIO* ssl_end = nullptr;
  BIO* net_end = nullptr;
  BIO_new_bio_pair(&ssl_end, kBufferSize, &net_end, kBufferSize);
  ssl_bio_.reset(ssl_end);
  net_bio_.reset(net_end);
  recv_buf_ = std::make_shared<IOBuffer>(kBufferSize);
}

SSLTransportAdapter::~SSLTransportAdapter() = default;

BIO* SSLTransportAdapter::TakeSSLBio() {
  BIO_up_ref(ssl_bio_.get());
  return ssl_bio_.get();
}

size_t SSLTransportAdapter::buffered_input() const {
  return BIO_ctrl_pending(ssl_bio_.get());
}

bool SSLTransportAdapter::output_flushed() const {
  return !send_pending_ && BIO_ctrl_pending(net_bio_.get()) == 0;
}

bool SSLTransportAdapter::Pump() {
  bool moved = DoSend();
  moved |= DoRecv();
  return moved;
}

bool SSLTransportAdapter::DoSend() {
  bool moved = false;
  while (!send_pending_ && write_error_ == OK) {
    if (!send_buf_ || send_buf_->BytesRemaining() == 0) {
      size_t pending = BIO_ctrl_pending(net_bio_.get());
      if (pending == 0) break;
      std::string bytes(pending, '\0');
      int n = BIO_read(net_bio_.get(), bytes.data(), pending);
      if (n <= 0) break;
      bytes.resize(n);
      send_buf_ = std::make_shared<DrainableIOBuffer>(bytes);
    }
    int rv = transport_->Write(send_buf_,
                               static_cast<int>(send_buf_->BytesRemaining()),
                               [weak = weak_factory_.GetWeakPtr()](int result) {
                                 if (weak) weak->OnSendComplete(result);
                               });
    if (rv == ERR_IO_PENDING) {
      send_pending_ = true;
      break;
    }
    if (rv < 0) {
      write_error_ = rv;
      break;
    }
    send_buf_->DidConsume(rv);
    bytes_sent_ += rv;
    moved = true;
  }
  return moved;
}

bool SSLTransportAdapter::DoRecv() {
  bool moved = false;
  while (!recv_pending_ && !read_eof_ && read_error_ == OK) {
    size_t space = BIO_ctrl_get_write_guarantee(net_bio_.get());
    if (space == 0) break;
    int len = static_cast<int>(std::min(space, kBufferSize));
    int rv = transport_->Read(recv_buf_, len,
                              [weak = weak_factory_.GetWeakPtr()](int result) {
                                if (weak) weak->OnRecvComplete(result);
                              });
    if (rv == ERR_IO_PENDING) {
      recv_pending_ = true;
      break;
    }
    HandleRecvResult(rv);
    moved = true;
  }
  return moved;
}

void SSLTransportAdapter::HandleRecvResult(int rv) {
  if (rv > 0) {
    constexpr size_t kFirstBytes = 16;
    if (first_bytes_.size() < kFirstBytes) {
      first_bytes_.append(
          recv_buf_->data(),
          std::min<size_t>(rv, kFirstBytes - first_bytes_.size()));
    }
    int written = BIO_write(net_bio_.get(), recv_buf_->data(), rv);
    // The read never exceeds the write guarantee, so this cannot be short.
    if (written != rv) read_error_ = ERR_UNEXPECTED;
    bytes_received_ += rv;
    return;
  }
  if (rv == 0) {
    read_eof_ = true;
  } else {
    read_error_ = rv;
  }
  // SSL now sees end of stream once it has consumed the buffered bytes.
  BIO_shutdown_wr(net_bio_.get());
}

void SSLTransportAdapter::OnSendComplete(int rv) {
  send_pending_ = false;
  if (rv < 0) {
    write_error_ = rv;
  } else {
    send_buf_->DidConsume(rv);
    bytes_sent_ += rv;
  }
  DoSend();
  delegate_->OnTransportIOComplete();
}

void SSLTransportAdapter::OnRecvComplete(int rv) {
  recv_pending_ = false;
  HandleRecvResult(rv);
  auto weak = weak_factory_.GetWeakPtr();
  delegate_->OnTransportIOComplete();
  // The delegate may have destroyed us; otherwise keep reading ahead.
  if (weak) DoRecv();
}

}  // namespace net
