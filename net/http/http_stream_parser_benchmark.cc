// Reading a response header block of N KB one byte per read, through
// HttpStreamParser (Google Benchmark):
//   bazel run -c opt //net/http:http_stream_parser_benchmark
//
// Before the incremental scanner the parser rescanned its whole buffer
// after every read (quadratic: 25 KB took 1.5 s, 99 KB 25 s); now each byte
// is examined once, so the time per byte is flat across sizes. Also a
// whole block in one read, for comparison.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "net/base/net_errors.h"
#include "net/http/http_stream_parser.h"
#include "net/socket/stream_socket.h"
#include "net/timing/load_timing.h"

namespace net {
namespace {

// Serves |bytes| synchronously, at most |per_read| bytes per Read.
class ScriptedSocket : public StreamSocket {
 public:
  ScriptedSocket(const std::string& bytes, size_t per_read)
      : bytes_(bytes), per_read_(per_read) {}
  int Connect(CompletionOnceCallback) override { return OK; }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback) override {
    size_t n =
        std::min({static_cast<size_t>(len), per_read_, bytes_.size() - pos_});
    std::memcpy(buf->data(), bytes_.data() + pos_, n);
    pos_ += n;
    return static_cast<int>(n);
  }
  int Write(std::shared_ptr<IOBuffer>, int len,
            CompletionOnceCallback) override {
    return len;
  }
  void Disconnect() override {}
  bool IsConnected() const override { return true; }
  bool IsConnectedAndIdle() const override { return true; }
  int GetPeerAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 80);
    return OK;
  }
  int GetLocalAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 50000);
    return OK;
  }

 private:
  const std::string& bytes_;
  const size_t per_read_;
  size_t pos_ = 0;
};

std::string HeaderBlock(size_t size) {
  std::string block = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n";
  for (int i = 0; block.size() + 4 < size; ++i) {
    absl::StrAppend(&block, "X-Filler-", i, ": ", std::string(90, 'v'), "\r\n");
  }
  return block + "\r\n";
}

void ReadHeaders(benchmark::State& state, size_t per_read) {
  const std::string block = HeaderBlock(state.range(0) * 1024);
  for (auto _ : state) {
    ScriptedSocket socket(block, per_read);
    LoadTiming timing;
    HttpStreamParser parser(&socket, &timing);
    int rv = parser.ReadResponseHeaders([](int) {});
    if (rv != OK) {
      state.SkipWithError(ErrorToShortString(rv).c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * block.size());
}

void BM_HeadersOneBytePerRead(benchmark::State& state) {
  ReadHeaders(state, 1);
}
BENCHMARK(BM_HeadersOneBytePerRead)
    ->Arg(25)
    ->Arg(100)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond);

void BM_HeadersInOneRead(benchmark::State& state) {
  ReadHeaders(state, 1 << 20);
}
BENCHMARK(BM_HeadersInOneRead)
    ->Arg(25)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace net

BENCHMARK_MAIN();
