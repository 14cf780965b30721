#include "dns/fake_dns_server.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace net {
namespace {

bool ParseQuery(const std::string& raw, FakeDnsQuery* query) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  uint16_t flags, qd, an, ns, ar;
  if (!CBS_get_u16(&cbs, &query->id) || !CBS_get_u16(&cbs, &flags) ||
      !CBS_get_u16(&cbs, &qd) || !CBS_get_u16(&cbs, &an) ||
      !CBS_get_u16(&cbs, &ns) || !CBS_get_u16(&cbs, &ar) || qd != 1)
    return false;
  for (;;) {
    CBS label;
    if (!CBS_get_u8_length_prefixed(&cbs, &label)) return false;
    if (CBS_len(&label) == 0) break;
    if (!query->name.empty()) query->name.push_back('.');
    query->name.append(reinterpret_cast<const char*>(CBS_data(&label)),
                       CBS_len(&label));
  }
  uint16_t qclass;
  return CBS_get_u16(&cbs, &query->qtype) && CBS_get_u16(&cbs, &qclass);
}

void AddName(CBB* cbb, const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    CBB label;
    CBB_add_u8_length_prefixed(cbb, &label);
    CBB_add_bytes(&label, reinterpret_cast<const uint8_t*>(name.data() + start),
                  dot - start);
    CBB_flush(cbb);
    start = dot + 1;
  }
  CBB_add_u8(cbb, 0);
}

}  // namespace

FakeDnsServer::FakeDnsServer(Handler handler) : handler_(std::move(handler)) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_storage storage;
  socklen_t len =
      IPEndPoint(IPAddress::IPv4Localhost(), 0).ToSockAddr(&storage);
  bind(fd_, reinterpret_cast<sockaddr*>(&storage), len);
  len = sizeof(storage);
  getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &len);
  address_.FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len);
  (void)!pipe(stop_pipe_);
  thread_ = std::thread([this] { Run(); });
}

FakeDnsServer::~FakeDnsServer() {
  (void)!write(stop_pipe_[1], "x", 1);
  thread_.join();
  close(fd_);
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
}

void FakeDnsServer::Run() {
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents) return;
    char buf[4096];
    sockaddr_storage from;
    socklen_t from_len = sizeof(from);
    ssize_t n = recvfrom(fd_, buf, sizeof(buf), 0,
                         reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n <= 0) continue;
    ++queries_;
    FakeDnsQuery query;
    query.raw.assign(buf, n);
    if (!ParseQuery(query.raw, &query)) continue;
    std::string response = handler_(query);
    if (!response.empty())
      sendto(fd_, response.data(), response.size(), 0,
             reinterpret_cast<sockaddr*>(&from), from_len);
  }
}

std::string FakeDnsServer::ARecord(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return std::string({static_cast<char>(a), static_cast<char>(b),
                      static_cast<char>(c), static_cast<char>(d)});
}

std::string FakeDnsServer::CnameRecord(const std::string& target) {
  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), target.size() + 2);
  AddName(cbb.get(), target);
  return std::string(reinterpret_cast<const char*>(CBB_data(cbb.get())),
                     CBB_len(cbb.get()));
}

std::string FakeDnsServer::BuildResponse(
    const FakeDnsQuery& query, int rcode,
    const std::vector<FakeDnsAnswer>& answers, int soa_ttl,
    uint32_t soa_minimum) {
  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), 512);
  CBB_add_u16(cbb.get(), query.id);
  CBB_add_u16(cbb.get(), 0x8400 | (rcode & 0xf));  // QR, AA
  CBB_add_u16(cbb.get(), 1);
  CBB_add_u16(cbb.get(), answers.size());
  CBB_add_u16(cbb.get(), soa_ttl >= 0 ? 1 : 0);
  CBB_add_u16(cbb.get(), 0);
  AddName(cbb.get(), query.name);
  CBB_add_u16(cbb.get(), query.qtype);
  CBB_add_u16(cbb.get(), 1);
  for (const FakeDnsAnswer& a : answers) {
    AddName(cbb.get(), a.owner.empty() ? query.name : a.owner);
    CBB_add_u16(cbb.get(), a.type);
    CBB_add_u16(cbb.get(), 1);
    CBB_add_u32(cbb.get(), a.ttl);
    CBB rdata;
    CBB_add_u16_length_prefixed(cbb.get(), &rdata);
    CBB_add_bytes(&rdata, reinterpret_cast<const uint8_t*>(a.rdata.data()),
                  a.rdata.size());
    CBB_flush(cbb.get());
  }
  if (soa_ttl >= 0) {
    AddName(cbb.get(), "test");
    CBB_add_u16(cbb.get(), 6);
    CBB_add_u16(cbb.get(), 1);
    CBB_add_u32(cbb.get(), soa_ttl);
    CBB rdata;
    CBB_add_u16_length_prefixed(cbb.get(), &rdata);
    AddName(&rdata, "ns.test");
    AddName(&rdata, "admin.test");
    for (uint32_t v : {1u, 3600u, 600u, 86400u}) CBB_add_u32(&rdata, v);
    CBB_add_u32(&rdata, soa_minimum);
    CBB_flush(cbb.get());
  }
  uint8_t* out;
  size_t out_len;
  CBB_finish(cbb.get(), &out, &out_len);
  std::string result(reinterpret_cast<char*>(out), out_len);
  OPENSSL_free(out);
  return result;
}

}  // namespace net
