// Transfer: the request the command line makes (method, body, its
// Content-Type, headers, options), and the exit code of each outcome.

#include "tools/fetch/transfer.h"

#include "gtest/gtest.h"

namespace net {
namespace {

class NoDelegate : public URLRequest::Delegate {
  void OnResponseStarted(URLRequest*, int) override {}
  void OnReadCompleted(URLRequest*, int) override {}
};

struct Made {
  std::string method;
  std::string body;
  HttpHeaderList headers;
};

// The request the command line |args| makes (never started).
Made Make(std::vector<std::string> args) {
  args.push_back("http://a.test/");
  FetchOptions options = *ParseFetchOptions(args);
  URLRequestContext context;
  NoDelegate delegate;
  URLRequest request(&context, *Url::Parse("http://a.test/"), &delegate,
                     RequestOptionsFor(options));
  ConfigureRequest(options, &request);
  return Made{request.method(), request.upload_body(),
              request.extra_request_headers()};
}

TEST(TransferTest, MethodAndBody) {
  EXPECT_EQ(Make({}).method, "GET");
  EXPECT_EQ(Make({"-I"}).method, "HEAD");
  Made post = Make({"-d", "a=1"});
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.body, "a=1");
  EXPECT_EQ(Make({"-X", "PUT", "-d", "x"}).method, "PUT");
  EXPECT_EQ(Make({"-X", "DELETE"}).body, "");
}

// A body goes form-encoded unless -H names its type; -H headers in order.
TEST(TransferTest, Headers) {
  EXPECT_EQ(Make({"-H", "X-A: 1"}).headers, (HttpHeaderList{{"X-A", "1"}}));
  EXPECT_EQ(
      Make({"-H", "X-A: 1", "-d", "a=1"}).headers,
      (HttpHeaderList{{"X-A", "1"},
                      {"Content-Type", "application/x-www-form-urlencoded"}}));
  EXPECT_EQ(Make({"-d", "a", "-H", "content-type: text/plain"}).headers,
            (HttpHeaderList{{"content-type", "text/plain"}}));
}

TEST(TransferTest, RequestOptions) {
  FetchOptions options = *ParseFetchOptions(
      {"-L", "--max-redirs", "3", "--max-filesize", "100", "http://a.test/"});
  URLRequest::Options o = RequestOptionsFor(options);
  EXPECT_TRUE(o.follow_redirects);
  EXPECT_EQ(o.max_redirects, 3);
  EXPECT_EQ(o.max_body_bytes, 100);
  EXPECT_TRUE(o.navigation);
  EXPECT_FALSE(o.decode_content);  // fetch hands out bodies as they came
  EXPECT_FALSE(RequestOptionsFor(*ParseFetchOptions({"http://a.test/"}))
                   .follow_redirects);
  // --priority, HIGHEST (a navigation's) without it.
  EXPECT_EQ(RequestOptionsFor(*ParseFetchOptions({"http://a.test/"})).priority,
            HIGHEST);
  EXPECT_EQ(RequestOptionsFor(
                *ParseFetchOptions({"--priority", "idle", "http://a.test/"}))
                .priority,
            IDLE);
}

TEST(TransferTest, ExitCodes) {
  FetchOptions options = *ParseFetchOptions({"-s", "http://a.test/"});
  URLRequestContext context;
  NoDelegate delegate;
  Transfer transfer;
  transfer.request =
      std::make_unique<URLRequest>(&context, *Url::Parse("http://a.test/"),
                                   &delegate, RequestOptionsFor(options));
  transfer.result = OK;
  transfer.timing.status_code = 404;
  EXPECT_EQ(ReportTransfer(options, transfer, 0, "out"), 0);
  options.fail_on_http_error = true;
  EXPECT_EQ(ReportTransfer(options, transfer, 0, "out"), 22);
  transfer.result = ERR_TOO_MANY_REDIRECTS;
  EXPECT_EQ(ReportTransfer(options, transfer, 0, "out"), 47);
  transfer.result = ERR_FILE_TOO_BIG;
  EXPECT_EQ(ReportTransfer(options, transfer, 0, "out"), 63);
  transfer.write_error = true;
  EXPECT_EQ(ReportTransfer(options, transfer, 0, "out"), 23);
}

}  // namespace
}  // namespace net
