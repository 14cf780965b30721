#include "net/snap_start/client_hello_router.h"

#include <utility>

namespace net {
namespace {
constexpr size_t kMaxPeek = 64 * 1024;
constexpr int kReadSize = 16 * 1024;
}  // namespace

ClientHelloRouter::ClientHelloRouter(std::unique_ptr<StreamSocket> transport,
                                     Callback callback)
    : transport_(std::move(transport)), callback_(std::move(callback)) {}

ClientHelloRouter::~ClientHelloRouter() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

void ClientHelloRouter::Start() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  ReadMore();
}

void ClientHelloRouter::ReadMore() {
  buf_ = std::make_shared<IOBuffer>(kReadSize);
  int rv = transport_->Read(buf_, kReadSize, [this](int rv) { OnRead(rv); });
  if (rv != ERR_IO_PENDING) OnRead(rv);
}

void ClientHelloRouter::OnRead(int result) {
  if (result <= 0) {
    Finish(Route::kOther);
    return;
  }
  bytes_.append(buf_->data(), result);
  Route route = SnapStartServerContext::ClassifyClientHello(bytes_);
  if (route == Route::kNeedMoreData && bytes_.size() < kMaxPeek) {
    ReadMore();
    return;
  }
  Finish(route == Route::kSnapStartCore ? route : Route::kOther);
}

void ClientHelloRouter::Finish(Route route) {
  // The callback may destroy this router.
  Callback callback = std::move(callback_);
  std::move(callback)(route, std::move(transport_), std::move(bytes_));
}

}  // namespace net
