#include "net/spdy/spdy_framer.h"

#include <openssl/bytestring.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "net/spdy/spdy_header_block.h"

namespace net {

namespace {

const uint8_t* Bytes(absl::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

absl::Status CheckStreamId(SpdyStreamId id, const char* what) {
  if (id == 0 || id > kSpdyStreamIdMask) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": stream id ", id, " is not in 1..2^31-1"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Finish(CBB* cbb, size_t max_frame_length) {
  // CBB_flush fails when the u24 length prefix overflows.
  if (!CBB_flush(cbb)) {
    return absl::ResourceExhaustedError(
        "frame longer than the 24-bit length field allows");
  }
  size_t length = CBB_len(cbb) - kSpdyFrameHeaderSize;
  if (length > max_frame_length) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "frame of ", length, " bytes (limit ", max_frame_length, ")"));
  }
  return std::string(reinterpret_cast<const char*>(CBB_data(cbb)),
                     CBB_len(cbb));
}

// BuildControlFrame writes a control frame header whose length covers what
// |fill| adds to the payload.
template <typename Fill>
absl::StatusOr<std::string> BuildControlFrame(SpdyFrameType type, uint8_t flags,
                                              size_t size_hint,
                                              size_t max_frame_length,
                                              Fill fill) {
  bssl::ScopedCBB cbb;
  CBB payload;
  if (!CBB_init(cbb.get(), kSpdyFrameHeaderSize + size_hint) ||
      !CBB_add_u16(cbb.get(), 0x8000 | kSpdyVersion) ||
      !CBB_add_u16(cbb.get(), static_cast<uint16_t>(type)) ||
      !CBB_add_u8(cbb.get(), flags) ||
      !CBB_add_u24_length_prefixed(cbb.get(), &payload) || !fill(&payload)) {
    return absl::InternalError("CBB failed");
  }
  return Finish(cbb.get(), max_frame_length);
}

}  // namespace

SpdyFramer::SpdyFramer(const SpdyLimits& limits) : limits_(limits) {}

absl::StatusOr<std::string> SpdyFramer::SerializeFrame(
    const SpdyFrameIR& frame) {
  struct Visitor {
    SpdyFramer* framer;
    absl::StatusOr<std::string> operator()(const SpdyDataIR& f) {
      return framer->SerializeData(f.stream_id, f.data, f.fin);
    }
    absl::StatusOr<std::string> operator()(const SpdySynStreamIR& f) {
      return framer->SerializeSynStream(f);
    }
    absl::StatusOr<std::string> operator()(const SpdySynReplyIR& f) {
      return framer->SerializeSynReply(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyRstStreamIR& f) {
      return framer->SerializeRstStream(f);
    }
    absl::StatusOr<std::string> operator()(const SpdySettingsIR& f) {
      return framer->SerializeSettings(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyPingIR& f) {
      return framer->SerializePing(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyGoAwayIR& f) {
      return framer->SerializeGoAway(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyHeadersIR& f) {
      return framer->SerializeHeaders(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyWindowUpdateIR& f) {
      return framer->SerializeWindowUpdate(f);
    }
    absl::StatusOr<std::string> operator()(const SpdyCredentialIR& f) {
      return framer->SerializeCredential(f);
    }
  };
  return std::visit(Visitor{this}, frame);
}

absl::StatusOr<std::string> SpdyFramer::SerializeData(SpdyStreamId stream_id,
                                                      absl::string_view data,
                                                      bool fin) {
  if (absl::Status s = CheckStreamId(stream_id, "DATA"); !s.ok()) return s;
  bssl::ScopedCBB cbb;
  CBB payload;
  if (!CBB_init(cbb.get(), kSpdyFrameHeaderSize + data.size()) ||
      !CBB_add_u32(cbb.get(), stream_id) ||
      !CBB_add_u8(cbb.get(), fin ? kSpdyFlagFin : 0) ||
      !CBB_add_u24_length_prefixed(cbb.get(), &payload) ||
      !CBB_add_bytes(&payload, Bytes(data), data.size())) {
    return absl::InternalError("CBB failed");
  }
  return Finish(cbb.get(), limits_.max_frame_length);
}

absl::StatusOr<std::string> SpdyFramer::CompressHeaders(
    const SpdyHeaderBlock& headers, size_t fixed_bytes) {
  absl::StatusOr<std::string> block = SerializeHeaderBlock(headers, limits_);
  if (!block.ok()) return block.status();
  // Deflate can expand its input a little (stored blocks: 5 bytes per 16 KB
  // at worst, plus the zlib header and the sync-flush marker). Refuse before
  // compressing anything that might not fit: a block compressed but never
  // sent would leave the peer's inflater out of step.
  size_t bound = fixed_bytes + block->size() + block->size() / 1024 + 64;
  if (bound > limits_.max_frame_length) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "header block of ", block->size(), " bytes may not fit in a frame (",
        limits_.max_frame_length, " bytes)"));
  }
  return compressor_.Compress(*block);
}

absl::StatusOr<std::string> SpdyFramer::SerializeSynStream(
    const SpdySynStreamIR& f) {
  if (absl::Status s = CheckStreamId(f.stream_id, "SYN_STREAM"); !s.ok())
    return s;
  if (f.associated_stream_id > kSpdyStreamIdMask) {
    return absl::InvalidArgumentError(
        "SYN_STREAM: associated stream id above 2^31-1");
  }
  if (f.priority > kSpdyLowestPriority) {
    return absl::InvalidArgumentError(
        absl::StrCat("SYN_STREAM: priority ", f.priority, " is not in 0..7"));
  }
  const size_t kFixed = 10;
  absl::StatusOr<std::string> block = CompressHeaders(f.headers, kFixed);
  if (!block.ok()) return block.status();
  uint8_t flags = (f.fin ? kSpdyFlagFin : 0) |
                  (f.unidirectional ? kSpdyFlagUnidirectional : 0);
  return BuildControlFrame(
      SpdyFrameType::kSynStream, flags, kFixed + block->size(),
      limits_.max_frame_length, [&](CBB* p) {
        return CBB_add_u32(p, f.stream_id) &&
               CBB_add_u32(p, f.associated_stream_id) &&
               CBB_add_u8(p, static_cast<uint8_t>(f.priority << 5)) &&
               CBB_add_u8(p, f.slot) &&
               CBB_add_bytes(p, Bytes(*block), block->size());
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializeSynReply(
    const SpdySynReplyIR& f) {
  if (absl::Status s = CheckStreamId(f.stream_id, "SYN_REPLY"); !s.ok())
    return s;
  absl::StatusOr<std::string> block = CompressHeaders(f.headers, 4);
  if (!block.ok()) return block.status();
  return BuildControlFrame(
      SpdyFrameType::kSynReply, f.fin ? kSpdyFlagFin : 0, 4 + block->size(),
      limits_.max_frame_length, [&](CBB* p) {
        return CBB_add_u32(p, f.stream_id) &&
               CBB_add_bytes(p, Bytes(*block), block->size());
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializeRstStream(
    const SpdyRstStreamIR& f) {
  if (absl::Status s = CheckStreamId(f.stream_id, "RST_STREAM"); !s.ok())
    return s;
  if (static_cast<uint32_t>(f.status) == 0)
    return absl::InvalidArgumentError("RST_STREAM: status 0 is invalid");
  return BuildControlFrame(
      SpdyFrameType::kRstStream, 0, 8, limits_.max_frame_length, [&](CBB* p) {
        return CBB_add_u32(p, f.stream_id) &&
               CBB_add_u32(p, static_cast<uint32_t>(f.status));
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializeSettings(
    const SpdySettingsIR& f) {
  for (const SpdySettingsEntry& e : f.entries) {
    if (e.id > kSpdySettingsIdMask) {
      return absl::InvalidArgumentError(
          absl::StrCat("SETTINGS: id ", e.id, " does not fit in 24 bits"));
    }
  }
  return BuildControlFrame(
      SpdyFrameType::kSettings,
      f.clear_settings ? kSpdyFlagSettingsClearSettings : 0,
      4 + 8 * f.entries.size(), limits_.max_frame_length, [&](CBB* p) {
        if (!CBB_add_u32(p, static_cast<uint32_t>(f.entries.size())))
          return false;
        for (const SpdySettingsEntry& e : f.entries) {
          if (!CBB_add_u8(p, e.flags) || !CBB_add_u24(p, e.id) ||
              !CBB_add_u32(p, e.value)) {
            return false;
          }
        }
        return true;
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializePing(const SpdyPingIR& f) {
  return BuildControlFrame(SpdyFrameType::kPing, 0, 4, limits_.max_frame_length,
                           [&](CBB* p) { return CBB_add_u32(p, f.id); });
}

absl::StatusOr<std::string> SpdyFramer::SerializeGoAway(const SpdyGoAwayIR& f) {
  if (f.last_good_stream_id > kSpdyStreamIdMask) {
    return absl::InvalidArgumentError(
        "GOAWAY: last good stream id above 2^31-1");
  }
  return BuildControlFrame(
      SpdyFrameType::kGoAway, 0, 8, limits_.max_frame_length, [&](CBB* p) {
        return CBB_add_u32(p, f.last_good_stream_id) &&
               CBB_add_u32(p, static_cast<uint32_t>(f.status));
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializeHeaders(
    const SpdyHeadersIR& f) {
  if (absl::Status s = CheckStreamId(f.stream_id, "HEADERS"); !s.ok()) return s;
  absl::StatusOr<std::string> block = CompressHeaders(f.headers, 4);
  if (!block.ok()) return block.status();
  return BuildControlFrame(
      SpdyFrameType::kHeaders, f.fin ? kSpdyFlagFin : 0, 4 + block->size(),
      limits_.max_frame_length, [&](CBB* p) {
        return CBB_add_u32(p, f.stream_id) &&
               CBB_add_bytes(p, Bytes(*block), block->size());
      });
}

absl::StatusOr<std::string> SpdyFramer::SerializeWindowUpdate(
    const SpdyWindowUpdateIR& f) {
  if (absl::Status s = CheckStreamId(f.stream_id, "WINDOW_UPDATE"); !s.ok())
    return s;
  if (f.delta == 0 || f.delta > kSpdyMaxWindowDelta) {
    return absl::InvalidArgumentError(
        absl::StrCat("WINDOW_UPDATE: delta ", f.delta, " is not in 1..2^31-1"));
  }
  return BuildControlFrame(SpdyFrameType::kWindowUpdate, 0, 8,
                           limits_.max_frame_length, [&](CBB* p) {
                             return CBB_add_u32(p, f.stream_id) &&
                                    CBB_add_u32(p, f.delta);
                           });
}

absl::StatusOr<std::string> SpdyFramer::SerializeCredential(
    const SpdyCredentialIR& f) {
  if (f.slot == 0)
    return absl::InvalidArgumentError("CREDENTIAL: slot 0 is invalid");
  if (f.certificates.empty())
    return absl::InvalidArgumentError("CREDENTIAL: no certificate");
  if (f.certificates.size() > limits_.max_credential_certificates) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "CREDENTIAL: ", f.certificates.size(), " certificates (limit ",
        limits_.max_credential_certificates, ")"));
  }
  size_t size = 6 + f.proof.size();
  for (const std::string& cert : f.certificates) {
    if (cert.empty())
      return absl::InvalidArgumentError("CREDENTIAL: empty certificate");
    size += 4 + cert.size();
  }
  if (size > limits_.max_frame_length) {
    return absl::ResourceExhaustedError(
        absl::StrCat("CREDENTIAL of ", size, " bytes (limit ",
                     limits_.max_frame_length, ")"));
  }
  return BuildControlFrame(
      SpdyFrameType::kCredential, 0, size, limits_.max_frame_length,
      [&](CBB* p) {
        if (!CBB_add_u16(p, f.slot) ||
            !CBB_add_u32(p, static_cast<uint32_t>(f.proof.size())) ||
            !CBB_add_bytes(p, Bytes(f.proof), f.proof.size())) {
          return false;
        }
        for (const std::string& cert : f.certificates) {
          if (!CBB_add_u32(p, static_cast<uint32_t>(cert.size())) ||
              !CBB_add_bytes(p, Bytes(cert), cert.size())) {
            return false;
          }
        }
        return true;
      });
}

}  // namespace net
