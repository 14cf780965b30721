// QuicPacketCounter: counts the QUIC packets one connection sent, received
// and declared lost, from the qlog events ngtcp2 writes (settings.qlog.write:
// one JSON-SEQ record per call, RFC 7464, draft-ietf-quic-qlog's names
// "transport:packet_sent", "transport:packet_received",
// "recovery:packet_lost"). ngtcp2 1.11's ngtcp2_conn_get_conn_info has RTTs
// and the congestion window but no packet counts; its qlog has every packet.
//
// Sans-I/O: the session hands each record in; nothing else is kept, so
// memory is constant whatever ngtcp2 logs. A record that is not a JSON-SEQ
// object with a "name" string in its first kMaxNameOffset bytes is ignored
// and counted as such (ParseQlogEventName says why).

#ifndef NET_QUIC_QUIC_PACKET_COUNTER_H_
#define NET_QUIC_QUIC_PACKET_COUNTER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

struct QuicPacketCounts {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t lost = 0;
};

// ParseQlogEventName returns the "name" of one qlog JSON-SEQ record
// ("\x1e{...,\"name\":\"transport:packet_sent\",...}\n"): the string value
// of the first "name" key within the first kMaxNameOffset bytes.
// InvalidArgument for a record that is not one (no record separator or
// object, no name there, an unterminated or escaped name).
inline constexpr size_t kMaxNameOffset = 256;
[[nodiscard]] absl::StatusOr<absl::string_view> ParseQlogEventName(
    absl::string_view record);

class QuicPacketCounter {
 public:
  // OnQlogRecord classifies one record ngtcp2 wrote.
  void OnQlogRecord(absl::string_view record);
  const QuicPacketCounts& counts() const { return counts_; }
  // Records that did not parse (never expected from ngtcp2).
  uint64_t malformed() const { return malformed_; }

 private:
  QuicPacketCounts counts_;
  uint64_t malformed_ = 0;
};

}  // namespace net

#endif  // NET_QUIC_QUIC_PACKET_COUNTER_H_
