#include "tools/netem/link_pipe.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace netem {

namespace {

// The |q|-quantile (0..1) of |sorted| (ascending), in ms; 0 if empty.
double QuantileMs(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t k = std::min(sorted.size() - 1,
                      static_cast<size_t>(q * (sorted.size() - 1) + 0.5));
  return sorted[k] / 1e6;
}

}  // namespace

double PipeStats::QueueDelayQuantileMs(double q) const {
  std::vector<int64_t> sorted = queue_delay_sample_ns;
  std::sort(sorted.begin(), sorted.end());
  return QuantileMs(sorted, q);
}

std::string PipeStats::ToJson() const {
  // One sorted copy for every quantile (the sample holds up to 2^20 delays).
  std::vector<int64_t> sorted = queue_delay_sample_ns;
  std::sort(sorted.begin(), sorted.end());
  return absl::StrFormat(
      "{\"packets_in\": %u, \"bytes_in\": %u, \"packets_out\": %u, "
      "\"bytes_out\": %u, \"drops\": {\"loss\": %u, \"queue\": %u, "
      "\"codel\": %u, \"mtu\": %u, \"syn_data\": %u}, "
      "\"duplicated_syn_data\": %u, \"max_queue_packets\": %u, "
      "\"max_queue_bytes\": %u, \"queue_delay_ms\": {\"p50\": %.3f, "
      "\"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f, \"samples\": %u}}",
      packets_in, bytes_in, packets_out, bytes_out, drops_loss, drops_queue,
      drops_codel, drops_mtu, drops_syn_data, duplicated_syn_data,
      max_queue_packets, max_queue_bytes, QuantileMs(sorted, 0.5),
      QuantileMs(sorted, 0.9), QuantileMs(sorted, 0.99),
      QuantileMs(sorted, 1.0), queue_delays_seen);
}

bool IsTcpSynWithData(const std::string& packet) {
  const auto* p = reinterpret_cast<const uint8_t*>(packet.data());
  const size_t n = packet.size();
  if (n < 1) return false;
  size_t ip_header = 0;
  size_t ip_total = 0;
  if ((p[0] >> 4) == 4) {
    if (n < 20 || p[9] != 6 /* TCP */) return false;
    ip_header = static_cast<size_t>(p[0] & 0x0f) * 4;
    ip_total = static_cast<size_t>(p[2]) << 8 | p[3];
  } else if ((p[0] >> 4) == 6) {
    if (n < 40 || p[6] != 6) return false;
    ip_header = 40;
    ip_total = 40 + (static_cast<size_t>(p[4]) << 8 | p[5]);
  } else {
    return false;
  }
  if (ip_header < 20 || ip_total > n || ip_total < ip_header + 20) return false;
  const uint8_t* tcp = p + ip_header;
  const size_t tcp_header = static_cast<size_t>(tcp[12] >> 4) * 4;
  const uint8_t flags = tcp[13];
  const bool syn = flags & 0x02, ack = flags & 0x10;
  if (tcp_header < 20 || ip_header + tcp_header > ip_total) return false;
  return syn && !ack && ip_total > ip_header + tcp_header;
}

namespace {

// Where the TCP header of a packet IsTcpSynWithData accepted starts.
size_t TcpHeaderOffset(const std::string& packet) {
  const uint8_t first = static_cast<uint8_t>(packet[0]);
  return (first >> 4) == 4 ? static_cast<size_t>(first & 0x0f) * 4 : 40;
}

}  // namespace

uint16_t TcpSourcePort(const std::string& packet) {
  const auto* tcp =
      reinterpret_cast<const uint8_t*>(packet.data()) + TcpHeaderOffset(packet);
  return static_cast<uint16_t>(tcp[0] << 8 | tcp[1]);
}

void SetTcpSourcePort(std::string* packet, uint16_t port) {
  uint8_t* tcp =
      reinterpret_cast<uint8_t*>(packet->data()) + TcpHeaderOffset(*packet);
  const uint16_t old_port = static_cast<uint16_t>(tcp[0] << 8 | tcp[1]);
  const uint16_t old_sum = static_cast<uint16_t>(tcp[16] << 8 | tcp[17]);
  // HC' = ~(~HC + ~m + m') in ones' complement arithmetic.
  uint32_t sum = static_cast<uint16_t>(~old_sum);
  sum += static_cast<uint16_t>(~old_port);
  sum += port;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t new_sum = static_cast<uint16_t>(~sum);
  tcp[0] = static_cast<uint8_t>(port >> 8);
  tcp[1] = static_cast<uint8_t>(port);
  tcp[16] = static_cast<uint8_t>(new_sum >> 8);
  tcp[17] = static_cast<uint8_t>(new_sum);
}

LinkPipe::LinkPipe(PipeParams params, int64_t start_ns)
    : params_(std::move(params)),
      start_ns_(start_ns),
      queue_(params_.queue),
      loss_(params_.loss, params_.seed),
      // A different stream from the loss model's, so that turning jitter on
      // does not change which packets are lost.
      rng_(params_.seed * 0x9E3779B97F4A7C15ull + 1) {}

void LinkPipe::Enqueue(std::string packet, int64_t now_ns) {
  ++stats_.packets_in;
  stats_.bytes_in += packet.size();
  if (static_cast<int64_t>(packet.size()) > params_.mtu) {
    ++stats_.drops_mtu;
    return;
  }
  if ((params_.drop_syn_data || params_.duplicate_syn_data_after_ns >= 0) &&
      IsTcpSynWithData(packet)) {
    if (params_.drop_syn_data) {
      ++stats_.drops_syn_data;
      return;
    }
    // The replay skips the queue and the ordering of the delay line (it
    // must not hold back what follows it), but not the in-flight bound.
    if (in_flight_bytes_ + static_cast<int64_t>(packet.size()) <=
        params_.max_in_flight_bytes) {
      ++stats_.duplicated_syn_data;
      in_flight_bytes_ += packet.size();
      std::string copy = packet;
      const uint16_t port = TcpSourcePort(copy);
      SetTcpSourcePort(&copy, port == 65535 ? 1024 : port + 1);
      in_flight_.push(InFlight{
          now_ns + params_.duplicate_syn_data_after_ns + params_.delay_ns,
          next_seq_++, std::move(copy)});
    }
  }
  if (loss_.Drop()) {
    ++stats_.drops_loss;
    return;
  }
  Packet p;
  p.data = std::move(packet);
  if (!queue_.Enqueue(std::move(p), now_ns)) {
    ++stats_.drops_queue;
    return;
  }
  stats_.max_queue_packets =
      std::max<uint64_t>(stats_.max_queue_packets, queue_.packets());
  stats_.max_queue_bytes =
      std::max<uint64_t>(stats_.max_queue_bytes, queue_.bytes());
}

void LinkPipe::RecordQueueDelay(int64_t ns) {
  ++stats_.queue_delays_seen;
  if (stats_.queue_delay_sample_ns.size() < PipeStats::kMaxSamples) {
    stats_.queue_delay_sample_ns.push_back(ns);
    return;
  }
  // Reservoir sampling: every delay seen has the same chance to be kept.
  std::uniform_int_distribution<uint64_t> pick(0, stats_.queue_delays_seen - 1);
  uint64_t slot = pick(rng_);
  if (slot < PipeStats::kMaxSamples) stats_.queue_delay_sample_ns[slot] = ns;
}

void LinkPipe::Propagate(std::string packet, int64_t sent_ns) {
  if (in_flight_bytes_ + static_cast<int64_t>(packet.size()) >
      params_.max_in_flight_bytes) {
    ++stats_.drops_queue;
    return;
  }
  in_flight_bytes_ += packet.size();
  int64_t due = sent_ns + params_.delay_ns;
  if (params_.jitter_ns > 0) {
    std::uniform_int_distribution<int64_t> jitter(0, params_.jitter_ns);
    due += jitter(rng_);
  }
  if (!params_.reorder) due = std::max(due, last_due_ns_);
  last_due_ns_ = std::max(last_due_ns_, due);
  in_flight_.push(InFlight{due, next_seq_++, std::move(packet)});
}

void LinkPipe::ServeLink(int64_t now_ns) {
  if (params_.trace) {
    const DeliveryTrace& trace = *params_.trace;
    while (current_ || !queue_.empty()) {
      int64_t t = start_ns_ + trace.TimeOf(cursor_);
      if (!current_ && queue_.head_arrival_ns() > t) {
        // Opportunities that pass with nothing to send are lost.
        cursor_ = trace.FirstAtOrAfter(queue_.head_arrival_ns() - start_ns_);
        continue;
      }
      if (t > now_ns) break;
      int64_t credit = DeliveryTrace::kBytesPerOpportunity;
      while (credit > 0) {
        if (!current_) {
          if (queue_.empty() || queue_.head_arrival_ns() > t) break;
          current_ = queue_.Dequeue(t);
          if (!current_) break;
          RecordQueueDelay(t - current_->arrival_ns);
          current_sent_bytes_ = 0;
        }
        int64_t left = current_->data.size() - current_sent_bytes_;
        if (left <= credit) {
          credit -= left;
          Propagate(std::move(current_->data), t);
          current_.reset();
        } else {
          current_sent_bytes_ += credit;
          credit = 0;
        }
      }
      cursor_ = trace.Next(cursor_);
    }
  } else if (params_.rate_bps > 0) {
    while (!queue_.empty()) {
      int64_t start = std::max(link_free_ns_, queue_.head_arrival_ns());
      if (start > now_ns) break;
      std::optional<Packet> p = queue_.Dequeue(start);
      if (!p) break;
      RecordQueueDelay(start - p->arrival_ns);
      int64_t end =
          start + std::llround(p->data.size() * 8 * 1e9 / params_.rate_bps);
      link_free_ns_ = end;
      Propagate(std::move(p->data), end);
    }
  } else {
    while (!queue_.empty()) {
      std::optional<Packet> p = queue_.Dequeue(queue_.head_arrival_ns());
      if (!p) break;
      RecordQueueDelay(0);
      Propagate(std::move(p->data), p->arrival_ns);
    }
  }
  stats_.drops_codel = queue_.codel_drops();
}

std::optional<int64_t> LinkPipe::NextEventNs() const {
  std::optional<int64_t> next;
  auto consider = [&](int64_t t) {
    if (!next || t < *next) next = t;
  };
  if (!in_flight_.empty()) consider(in_flight_.top().due_ns);
  if (params_.trace) {
    if (current_) {
      consider(start_ns_ + params_.trace->TimeOf(cursor_));
    } else if (!queue_.empty()) {
      int64_t t = start_ns_ + params_.trace->TimeOf(cursor_);
      if (queue_.head_arrival_ns() > t) {
        t = start_ns_ + params_.trace->TimeOf(params_.trace->FirstAtOrAfter(
                            queue_.head_arrival_ns() - start_ns_));
      }
      consider(t);
    }
  } else if (!queue_.empty()) {
    consider(params_.rate_bps > 0
                 ? std::max(link_free_ns_, queue_.head_arrival_ns())
                 : queue_.head_arrival_ns());
  }
  return next;
}

void LinkPipe::Deliver(int64_t now_ns,
                       absl::FunctionRef<void(const std::string&)> deliver) {
  ServeLink(now_ns);
  while (!in_flight_.empty() && in_flight_.top().due_ns <= now_ns) {
    const InFlight& top = in_flight_.top();
    ++stats_.packets_out;
    stats_.bytes_out += top.data.size();
    in_flight_bytes_ -= top.data.size();
    deliver(top.data);
    in_flight_.pop();
  }
}

}  // namespace netem
