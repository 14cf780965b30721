// Fuzz target for ParseQlogEventName / QuicPacketCounter: any bytes, as one
// record and split in two; the parse never reads past the record, a name it
// returns lies inside it (after the "name" key, before a quote), and the
// counts never exceed the records fed.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "net/quic/quic_packet_counter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view record(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<absl::string_view> name = net::ParseQlogEventName(record);
  if (name.ok()) {
    if (name->data() < record.data() ||
        name->data() + name->size() > record.data() + record.size()) {
      abort();
    }
    if (name->find('"') != absl::string_view::npos) abort();
    if (record.empty() || record[0] != '\x1e') abort();
  }
  net::QuicPacketCounter counter;
  counter.OnQlogRecord(record);
  counter.OnQlogRecord(record.substr(0, size / 2));
  counter.OnQlogRecord(record.substr(size / 2));
  const net::QuicPacketCounts& c = counter.counts();
  // Each record counts once at most (other event names count nowhere).
  if (c.sent + c.received + c.lost + counter.malformed() > 3) abort();
  return 0;
}
