// TestURLRequestDelegate (testonly): a URLRequest::Delegate that follows
// every redirect, reads the whole body and can wait for the end by running
// the current EventLoop — Chromium's TestDelegate, cut down.
//
//   TestURLRequestDelegate delegate;
//   auto request = context->CreateRequest(url, &delegate);
//   request->Start();
//   delegate.RunUntilComplete();
//   EXPECT_EQ(delegate.result(), OK);
//   EXPECT_EQ(delegate.body(), "...");

#ifndef NET_URL_REQUEST_URL_REQUEST_TEST_UTIL_H_
#define NET_URL_REQUEST_URL_REQUEST_TEST_UTIL_H_

#include <memory>
#include <string>

#include "net/url_request/url_request.h"

namespace net {

class TestURLRequestDelegate : public URLRequest::Delegate {
 public:
  explicit TestURLRequestDelegate(int read_size = 4096)
      : read_size_(read_size) {}

  // RunUntilComplete runs the current EventLoop until the request ended:
  // it failed, or its body was read to the end (or failed).
  void RunUntilComplete();

  bool complete() const { return complete_; }
  // OK once the body was read to its end, else the error.
  int result() const { return result_; }
  const std::string& body() const { return body_; }
  int redirects() const { return redirects_; }

  // URLRequest::Delegate:
  void OnReceivedRedirect(URLRequest* request, const RedirectInfo& info,
                          bool* defer_redirect) override;
  void OnResponseStarted(URLRequest* request, int net_error) override;
  void OnReadCompleted(URLRequest* request, int bytes_read) override;

 private:
  void ReadLoop(URLRequest* request);
  // Takes one Read result; false when the body ended or failed.
  bool Take(int rv);
  void Complete(int result);

  const int read_size_;
  std::shared_ptr<IOBuffer> buf_;
  std::string body_;
  int redirects_ = 0;
  int result_ = ERR_IO_PENDING;
  bool complete_ = false;
  bool waiting_ = false;
};

}  // namespace net

#endif  // NET_URL_REQUEST_URL_REQUEST_TEST_UTIL_H_
