#include "net/quic/quic_packet_counter.h"

#include "absl/status/status.h"

namespace net {

absl::StatusOr<absl::string_view> ParseQlogEventName(absl::string_view record) {
  // JSON-SEQ: RS, then the JSON text (RFC 7464 2.2).
  if (record.empty() || record[0] != '\x1e')
    return absl::InvalidArgumentError("no record separator");
  record.remove_prefix(1);
  if (record.empty() || record[0] != '{')
    return absl::InvalidArgumentError("not a JSON object");
  absl::string_view head = record.substr(0, kMaxNameOffset);
  constexpr absl::string_view kKey = "\"name\":\"";
  size_t at = head.find(kKey);
  if (at == absl::string_view::npos)
    return absl::InvalidArgumentError("no \"name\" near the record's start");
  absl::string_view rest = record.substr(at + kKey.size());
  size_t end = rest.find_first_of("\"\\");
  if (end == absl::string_view::npos)
    return absl::InvalidArgumentError("unterminated name");
  if (rest[end] == '\\')
    return absl::InvalidArgumentError("escaped name (none of ngtcp2's are)");
  return rest.substr(0, end);
}

void QuicPacketCounter::OnQlogRecord(absl::string_view record) {
  absl::StatusOr<absl::string_view> name = ParseQlogEventName(record);
  if (!name.ok()) {
    ++malformed_;
    return;
  }
  if (*name == "transport:packet_sent") {
    ++counts_.sent;
  } else if (*name == "transport:packet_received") {
    ++counts_.received;
  } else if (*name == "recovery:packet_lost") {
    ++counts_.lost;
  }
}

}  // namespace net
