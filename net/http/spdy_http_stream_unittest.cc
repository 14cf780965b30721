// SpdyHttpStream against a scripted SPDY/3 peer (TestSpdyPeer over an
// in-memory socket pair): the first stream of a new session (the session
// goes into the pool), the SPDY request headers it sends, the SYN_REPLY read
// as HTTP/1.1 headers, the trace's SPDY facts, a reset after a complete
// body, a SYN_REPLY without a numeric :status, a session that went away,
// and which errors send the request to another stream.

#include "net/http/spdy_http_stream.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {
namespace {

class SpdyHttpStreamTest : public ::testing::Test {
 protected:
  SpdyHttpStreamTest() {
    request_.url = *Url::Parse("https://a.test/page?q=1");
  }

  SpdyHttpStream::Params Params() {
    SpdyHttpStream::Params params;
    params.timing = &timing_;
    params.client_cert = &client_cert_;
    return params;
  }

  // A stream on a new connection whose other end is peer_.
  std::unique_ptr<SpdyHttpStream> NewConnectionStream() {
    auto [client, server] = CreateFakeSocketPair();
    peer_ = std::make_unique<TestSpdyPeer>(std::move(server));
    return std::make_unique<SpdyHttpStream>(
        std::move(client), &pool_, [this] { ++sessions_started_; }, Params());
  }

  // Initializes and sends; returns the stream id the peer saw.
  SpdyStreamId Send(SpdyHttpStream* stream) {
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(stream->InitializeStream(&request_,
                                                        cb.callback())));
    EXPECT_EQ(OK, cb.GetResult(stream->SendRequest(cb.callback())));
    EXPECT_TRUE(TestSpdyPeer::RunUntil([&] {
      return !peer_->FramesOf<SpdySynStreamIR>().empty();
    }));
    auto syns = peer_->FramesOf<SpdySynStreamIR>();
    return syns.empty() ? 0 : syns[0].stream_id;
  }

  std::string ReadBody(SpdyHttpStream* stream, int* error) {
    std::string body;
    auto buf = std::make_shared<IOBuffer>(4);
    for (;;) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(stream->ReadResponseBody(buf, 4, cb.callback()));
      if (rv <= 0) {
        *error = rv;
        return body;
      }
      body.append(buf->data(), rv);
    }
  }

  EventLoop loop_;
  HttpRequestInfo request_;
  LoadTiming timing_;
  ClientCert client_cert_;
  SpdySessionPool pool_;
  std::unique_ptr<TestSpdyPeer> peer_;
  int sessions_started_ = 0;
};

TEST_F(SpdyHttpStreamTest, NewSessionRequestAndResponse) {
  auto stream = NewConnectionStream();
  request_.extra_headers = {{"x-test", "1"}, {"Cookie", "k=v"}};
  const SpdyStreamId id = Send(stream.get());
  ASSERT_EQ(1u, id);
  EXPECT_EQ(1, sessions_started_);
  EXPECT_TRUE(pool_.FindAvailableSession(Origin("https", "a.test", 443)));
  EXPECT_TRUE(timing_.spdy.used);
  EXPECT_EQ(0u, timing_.spdy.session_id.find("https://a.test via "))
      << timing_.spdy.session_id;
  EXPECT_FALSE(timing_.request_start.is_null());

  const SpdyHeaderBlock sent = peer_->FramesOf<SpdySynStreamIR>()[0].headers;
  EXPECT_EQ("GET", sent.at(":method"));
  EXPECT_EQ("/page?q=1", sent.at(":path"));
  EXPECT_EQ("k=v", sent.at("cookie"));
  EXPECT_EQ("1", sent.at("x-test"));
  EXPECT_EQ("netstack-fetch/0.1", sent.at("user-agent"));
  EXPECT_EQ(stream->request_headers_sent(),
            (std::vector<std::pair<std::string, std::string>>(sent.begin(),
                                                              sent.end())));

  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.headers = {{":status", "200 OK"},
                   {":version", "HTTP/1.1"},
                   {"content-length", "5"},
                   {std::string("set-cookie"), std::string("a=1\0b=2", 7)}};
  peer_->Send(reply);
  peer_->Send(SpdyDataIR{id, "hello", true});

  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  const HttpResponseHeaders* headers = stream->response_headers();
  ASSERT_TRUE(headers);
  EXPECT_EQ(200, headers->status_code());
  EXPECT_EQ(5, headers->content_length());
  int cookies = 0;
  for (const auto& [name, value] : headers->headers())
    cookies += name == "set-cookie";
  EXPECT_EQ(2, cookies);  // one NUL-separated SPDY value, two HTTP headers
  EXPECT_EQ(1u, timing_.spdy.stream_id);
  EXPECT_FALSE(timing_.response_start.is_null());
  EXPECT_GT(timing_.header_bytes, 0);

  int error = 1;
  EXPECT_EQ("hello", ReadBody(stream.get(), &error));
  EXPECT_EQ(0, error);
  EXPECT_TRUE(stream->IsResponseBodyComplete());
  EXPECT_EQ(5, timing_.body_bytes);
  EXPECT_FALSE(timing_.response_end.is_null());
  bool reusable = true;
  EXPECT_EQ(nullptr, stream->ReleaseConnection(&reusable));
  EXPECT_FALSE(reusable);
}

TEST_F(SpdyHttpStreamTest, ResetAfterTheWholeContentLengthIsTheEnd) {
  auto stream = NewConnectionStream();
  const SpdyStreamId id = Send(stream.get());
  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.headers = {{":status", "200"}, {":version", "HTTP/1.1"},
                   {"content-length", "3"}};
  peer_->Send(reply);
  peer_->Send(SpdyDataIR{id, "abc", false});
  peer_->Send(SpdyRstStreamIR{id, SpdyRstStreamStatus::kCancel});
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  int error = 1;
  EXPECT_EQ("abc", ReadBody(stream.get(), &error));
  EXPECT_EQ(0, error);
  EXPECT_EQ("", stream->error_detail());
}

TEST_F(SpdyHttpStreamTest, ResetBeforeTheContentLengthIsAnError) {
  auto stream = NewConnectionStream();
  const SpdyStreamId id = Send(stream.get());
  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.headers = {{":status", "200"}, {":version", "HTTP/1.1"},
                   {"content-length", "10"}};
  peer_->Send(reply);
  peer_->Send(SpdyDataIR{id, "abc", false});
  peer_->Send(SpdyRstStreamIR{id, SpdyRstStreamStatus::kCancel});
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  int error = 0;
  EXPECT_EQ("abc", ReadBody(stream.get(), &error));
  EXPECT_EQ(ERR_SPDY_STREAM_RESET, error);
  EXPECT_EQ("SPDY stream 1 failed: ERR_SPDY_STREAM_RESET",
            stream->error_detail());
  EXPECT_TRUE(stream->IsResponseBodyComplete());
}

TEST_F(SpdyHttpStreamTest, SynReplyWithoutANumericStatusIsAProtocolError) {
  auto stream = NewConnectionStream();
  const SpdyStreamId id = Send(stream.get());
  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.headers = {{":status", "OK"}, {":version", "HTTP/1.1"}};
  peer_->Send(reply);
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR,
            cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  EXPECT_EQ("the SYN_REPLY has no valid :status", stream->error_detail());
  EXPECT_EQ(nullptr, stream->response_headers());
}

TEST_F(SpdyHttpStreamTest, AStreamOfAnOpenSessionThatWentAwayIsRefused) {
  auto [client, server] = CreateFakeSocketPair();
  SpdySessionParams params;
  params.origin = Origin("https", "a.test", 443);
  auto session = std::make_unique<SpdySession>(std::move(client), params);
  WeakPtr<SpdySession> weak = session->GetWeakPtr();
  SpdyHttpStream stream(weak, Params());
  session.reset();
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            cb.GetResult(stream.InitializeStream(&request_, cb.callback())));
}

TEST_F(SpdyHttpStreamTest, RetryRules) {
  SpdyHttpStream::Params params = Params();
  SpdyHttpStream direct(WeakPtr<SpdySession>(), params);
  bool avoid_pooling = false;
  // On the origin's own session the server's refusal of the credential is
  // final.
  EXPECT_FALSE(direct.ShouldRetryOnAnotherStream(ERR_SPDY_INVALID_CREDENTIALS,
                                                 &avoid_pooling));
  EXPECT_FALSE(direct.ShouldRetryOnAnotherStream(ERR_CONNECTION_RESET,
                                                 &avoid_pooling));
  EXPECT_EQ("", timing_.spdy.retry);
  EXPECT_TRUE(direct.ShouldRetryOnAnotherStream(
      ERR_SPDY_SERVER_REFUSED_STREAM, &avoid_pooling));
  EXPECT_FALSE(avoid_pooling);
  EXPECT_EQ("refused stream (GOAWAY): retried on a new session",
            timing_.spdy.retry);

  params.pooled = true;
  SpdyHttpStream pooled(WeakPtr<SpdySession>(), params);
  EXPECT_TRUE(pooled.ShouldRetryOnAnotherStream(
      ERR_SPDY_CREDENTIAL_UNAVAILABLE, &avoid_pooling));
  EXPECT_TRUE(avoid_pooling);
  EXPECT_EQ(
      "ERR_SPDY_CREDENTIAL_UNAVAILABLE: retried on a direct connection",
      timing_.spdy.retry);
}

}  // namespace
}  // namespace net
