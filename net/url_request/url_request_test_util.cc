#include "net/url_request/url_request_test_util.h"

#include "net/base/event_loop.h"

namespace net {

void TestURLRequestDelegate::RunUntilComplete() {
  while (!complete_) {
    waiting_ = true;
    EventLoop::Current()->Run();
    waiting_ = false;
  }
}

void TestURLRequestDelegate::OnReceivedRedirect(URLRequest* request,
                                                const RedirectInfo& info,
                                                bool* defer_redirect) {
  ++redirects_;
}

void TestURLRequestDelegate::OnResponseStarted(URLRequest* request,
                                               int net_error) {
  if (net_error != OK) return Complete(net_error);
  ReadLoop(request);
}

void TestURLRequestDelegate::OnReadCompleted(URLRequest* request,
                                             int bytes_read) {
  if (Take(bytes_read)) ReadLoop(request);
}

void TestURLRequestDelegate::ReadLoop(URLRequest* request) {
  for (;;) {
    buf_ = std::make_shared<IOBuffer>(read_size_);
    int rv = request->Read(buf_, read_size_);
    if (rv == ERR_IO_PENDING) return;
    if (!Take(rv)) return;
  }
}

bool TestURLRequestDelegate::Take(int rv) {
  if (rv <= 0) {
    Complete(rv);
    return false;
  }
  body_.append(buf_->data(), rv);
  return true;
}

void TestURLRequestDelegate::Complete(int result) {
  result_ = result;
  complete_ = true;
  if (waiting_) EventLoop::Current()->Quit();
}

}  // namespace net
