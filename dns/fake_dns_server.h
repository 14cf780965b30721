// FakeDnsServer (testonly): a UDP DNS server on 127.0.0.1 with a scripted
// answer function, on its own thread, for cases a real server cannot
// produce (malformed answers, silence) and exact TTL tests.
//
// The answer function gets the parsed query and returns the raw response
// bytes, or an empty string to stay silent.

#ifndef DNS_FAKE_DNS_SERVER_H_
#define DNS_FAKE_DNS_SERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "net/base/ip_endpoint.h"

namespace net {

struct FakeDnsQuery {
  uint16_t id = 0;
  std::string name;
  uint16_t qtype = 0;
  std::string raw;  // the whole query message
};

struct FakeDnsAnswer {
  uint16_t type;
  uint32_t ttl;
  std::string rdata;
  // The record's owner name; empty: the query's name.
  std::string owner;
};

class FakeDnsServer {
 public:
  using Handler = std::function<std::string(const FakeDnsQuery&)>;
  explicit FakeDnsServer(Handler handler);
  ~FakeDnsServer();

  const IPEndPoint& address() const { return address_; }
  std::string address_string() const { return address_.ToString(); }
  int queries() const { return queries_.load(); }

  // BuildResponse makes a response to |query| with |rcode|, the answers, and
  // optionally an SOA (TTL, minimum) in the authority section.
  static std::string BuildResponse(const FakeDnsQuery& query, int rcode,
                                   const std::vector<FakeDnsAnswer>& answers,
                                   int soa_ttl = -1, uint32_t soa_minimum = 0);
  static std::string ARecord(uint8_t a, uint8_t b, uint8_t c, uint8_t d);
  // The RDATA of a CNAME to |target| (uncompressed wire name).
  static std::string CnameRecord(const std::string& target);

 private:
  void Run();

  Handler handler_;
  int fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  IPEndPoint address_;
  std::atomic<int> queries_{0};
  std::thread thread_;
};

}  // namespace net

#endif  // DNS_FAKE_DNS_SERVER_H_
