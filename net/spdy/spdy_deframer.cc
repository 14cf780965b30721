#include "net/spdy/spdy_deframer.h"

#include <openssl/bytestring.h>

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "net/base/net_errors.h"
#include "net/spdy/spdy_header_block.h"

namespace net {

namespace {

CBS ToCbs(absl::string_view s) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(s.data()), s.size());
  return cbs;
}

absl::string_view View(const CBS& cbs) {
  return absl::string_view(reinterpret_cast<const char*>(CBS_data(&cbs)),
                           CBS_len(&cbs));
}

}  // namespace

std::string ToString(SpdyDeframerError error) {
  switch (error) {
    case SpdyDeframerError::kNoError:
      return "NO_ERROR";
    case SpdyDeframerError::kUnsupportedVersion:
      return "UNSUPPORTED_VERSION";
    case SpdyDeframerError::kInvalidControlFrame:
      return "INVALID_CONTROL_FRAME";
    case SpdyDeframerError::kInvalidControlFrameFlags:
      return "INVALID_CONTROL_FRAME_FLAGS";
    case SpdyDeframerError::kInvalidDataFrame:
      return "INVALID_DATA_FRAME";
    case SpdyDeframerError::kFrameTooLarge:
      return "FRAME_TOO_LARGE";
    case SpdyDeframerError::kHeaderBlockTooLarge:
      return "HEADER_BLOCK_TOO_LARGE";
    case SpdyDeframerError::kInvalidHeaderBlock:
      return "INVALID_HEADER_BLOCK";
    case SpdyDeframerError::kDecompressFailure:
      return "DECOMPRESS_FAILURE";
  }
  return "UNKNOWN";
}

int SpdyDeframerErrorToNetError(SpdyDeframerError error) {
  switch (error) {
    case SpdyDeframerError::kNoError:
      return OK;
    case SpdyDeframerError::kDecompressFailure:
      return ERR_SPDY_COMPRESSION_ERROR;
    case SpdyDeframerError::kFrameTooLarge:
    case SpdyDeframerError::kHeaderBlockTooLarge:
      return ERR_SPDY_FRAME_SIZE_ERROR;
    case SpdyDeframerError::kUnsupportedVersion:
    case SpdyDeframerError::kInvalidControlFrame:
    case SpdyDeframerError::kInvalidControlFrameFlags:
    case SpdyDeframerError::kInvalidDataFrame:
    case SpdyDeframerError::kInvalidHeaderBlock:
      return ERR_SPDY_PROTOCOL_ERROR;
  }
  return ERR_SPDY_PROTOCOL_ERROR;
}

std::string ToString(SpdyDeframer::State state) {
  switch (state) {
    case SpdyDeframer::State::kReadingFrameHeader:
      return "READING_FRAME_HEADER";
    case SpdyDeframer::State::kReadingDataPayload:
      return "READING_DATA_PAYLOAD";
    case SpdyDeframer::State::kReadingControlPayload:
      return "READING_CONTROL_PAYLOAD";
    case SpdyDeframer::State::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

SpdyDeframer::SpdyDeframer(SpdyDeframerVisitorInterface* visitor,
                           const SpdyLimits& limits)
    : visitor_(visitor), limits_(limits) {}

size_t SpdyDeframer::ProcessInput(absl::string_view data) {
  size_t consumed = 0;
  while (consumed < data.size() && state_ != State::kError) {
    absl::string_view rest = data.substr(consumed);
    switch (state_) {
      case State::kReadingFrameHeader: {
        size_t n = std::min(kSpdyFrameHeaderSize - header_length_, rest.size());
        std::copy_n(rest.data(), n, header_ + header_length_);
        header_length_ += n;
        consumed += n;
        if (header_length_ == kSpdyFrameHeaderSize) ProcessFrameHeader();
        break;
      }
      case State::kReadingDataPayload: {
        size_t n = std::min(remaining_payload_, rest.size());
        remaining_payload_ -= n;
        consumed += n;
        visitor_->OnStreamFrameData(data_stream_id_, rest.substr(0, n));
        if (remaining_payload_ == 0) FinishDataFrame();
        break;
      }
      case State::kReadingControlPayload: {
        size_t n = std::min(remaining_payload_, rest.size());
        control_payload_.append(rest.data(), n);
        remaining_payload_ -= n;
        consumed += n;
        if (remaining_payload_ == 0) ProcessControlFrame();
        break;
      }
      case State::kError:
        break;
    }
  }
  return consumed;
}

void SpdyDeframer::ProcessFrameHeader() {
  header_length_ = 0;
  CBS cbs;
  CBS_init(&cbs, header_, kSpdyFrameHeaderSize);
  uint32_t first, length;
  uint8_t flags;
  // Cannot fail: the header is 8 bytes.
  CBS_get_u32(&cbs, &first);
  CBS_get_u8(&cbs, &flags);
  CBS_get_u24(&cbs, &length);
  flags_ = flags;
  remaining_payload_ = length;
  is_control_ = (first & 0x80000000u) != 0;

  if (!is_control_) {
    data_stream_id_ = first & kSpdyStreamIdMask;
    if (length > limits_.max_frame_length) {
      return SetError(SpdyDeframerError::kFrameTooLarge,
                      absl::StrCat("DATA frame of ", length, " bytes (limit ",
                                   limits_.max_frame_length, ")"));
    }
    if (data_stream_id_ == 0) {
      return SetError(SpdyDeframerError::kInvalidDataFrame,
                      "DATA frame for stream 0");
    }
    if (flags & ~kSpdyFlagFin) {
      return SetError(SpdyDeframerError::kInvalidDataFrame,
                      absl::StrCat("DATA frame with flags ", flags));
    }
    visitor_->OnDataFrameHeader(data_stream_id_, length,
                                (flags & kSpdyFlagFin) != 0);
    state_ = State::kReadingDataPayload;
    if (length == 0) FinishDataFrame();
    return;
  }

  uint16_t version = static_cast<uint16_t>((first >> 16) & 0x7fff);
  type_ = static_cast<uint16_t>(first & 0xffff);
  if (version != kSpdyVersion) {
    return SetError(SpdyDeframerError::kUnsupportedVersion,
                    absl::StrCat("control frame of version ", version));
  }
  size_t max =
      std::min(limits_.max_control_frame_length, limits_.max_frame_length);
  if (length > max) {
    return SetError(
        SpdyDeframerError::kFrameTooLarge,
        absl::StrCat(ToString(static_cast<SpdyFrameType>(type_)), " frame of ",
                     length, " bytes (limit ", max, ")"));
  }
  control_payload_.clear();
  control_payload_.reserve(length);
  state_ = State::kReadingControlPayload;
  if (length == 0) ProcessControlFrame();
}

void SpdyDeframer::FinishDataFrame() {
  state_ = State::kReadingFrameHeader;
  if (flags_ & kSpdyFlagFin) visitor_->OnStreamEnd(data_stream_id_);
}

void SpdyDeframer::ProcessControlFrame() {
  state_ = State::kReadingFrameHeader;
  std::string payload = std::move(control_payload_);
  control_payload_.clear();
  switch (static_cast<SpdyFrameType>(type_)) {
    case SpdyFrameType::kSynStream:
      return ParseSynStream(payload);
    case SpdyFrameType::kSynReply:
      return ParseSynReply(payload);
    case SpdyFrameType::kRstStream:
      return ParseRstStream(payload);
    case SpdyFrameType::kSettings:
      return ParseSettings(payload);
    case SpdyFrameType::kPing:
      return ParsePing(payload);
    case SpdyFrameType::kGoAway:
      return ParseGoAway(payload);
    case SpdyFrameType::kHeaders:
      return ParseHeaders(payload);
    case SpdyFrameType::kWindowUpdate:
      return ParseWindowUpdate(payload);
    case SpdyFrameType::kCredential:
      return ParseCredential(payload);
    case SpdyFrameType::kData:  // type 0 is not a control frame type
      break;
  }
  visitor_->OnUnknownControlFrame(type_, flags_, payload);
}

bool SpdyDeframer::CheckFlags(uint8_t allowed) {
  if ((flags_ & ~allowed) == 0) return true;
  SetError(SpdyDeframerError::kInvalidControlFrameFlags,
           absl::StrCat(FrameName(), " with flags ", flags_));
  return false;
}

std::string SpdyDeframer::FrameName() const {
  return ToString(static_cast<SpdyFrameType>(type_));
}

void SpdyDeframer::SetInvalidFrame(absl::string_view what) {
  SetError(SpdyDeframerError::kInvalidControlFrame,
           absl::StrCat(FrameName(), " ", what));
}

void SpdyDeframer::SetBadLength(size_t length, absl::string_view expected) {
  SetInvalidFrame(absl::StrCat("of ", length, " bytes (", expected, ")"));
}

bool SpdyDeframer::CheckStreamId(SpdyStreamId stream_id) {
  if (stream_id != 0) return true;
  SetInvalidFrame("for stream 0");
  return false;
}

bool SpdyDeframer::ReadTwoU32(absl::string_view payload, uint32_t* first,
                              uint32_t* second) {
  CBS cbs = ToCbs(payload);
  if (payload.size() != 8 || !CBS_get_u32(&cbs, first) ||
      !CBS_get_u32(&cbs, second)) {
    SetBadLength(payload.size(), "must be 8");
    return false;
  }
  return true;
}

template <typename Frame>
bool SpdyDeframer::ParseStreamIdAndHeaders(absl::string_view payload,
                                           Frame* frame) {
  if (!CheckFlags(kSpdyFlagFin)) return false;
  CBS cbs = ToCbs(payload);
  uint32_t stream_id;
  if (!CBS_get_u32(&cbs, &stream_id)) {
    SetBadLength(payload.size(), "at least 4");
    return false;
  }
  frame->stream_id = stream_id & kSpdyStreamIdMask;
  frame->fin = (flags_ & kSpdyFlagFin) != 0;
  return CheckStreamId(frame->stream_id) &&
         DecodeHeaderBlock(View(cbs), &frame->headers);
}

bool SpdyDeframer::DecodeHeaderBlock(absl::string_view compressed,
                                     SpdyHeaderBlock* headers) {
  std::string frame = FrameName();
  absl::StatusOr<std::string> block =
      decompressor_.Decompress(compressed, limits_.max_header_block_bytes);
  if (!block.ok()) {
    SetError(absl::IsResourceExhausted(block.status())
                 ? SpdyDeframerError::kHeaderBlockTooLarge
                 : SpdyDeframerError::kDecompressFailure,
             absl::StrCat(frame, ": ", block.status().message()));
    return false;
  }
  absl::StatusOr<SpdyHeaderBlock> parsed = ParseHeaderBlock(*block, limits_);
  if (!parsed.ok()) {
    SetError(absl::IsResourceExhausted(parsed.status())
                 ? SpdyDeframerError::kHeaderBlockTooLarge
                 : SpdyDeframerError::kInvalidHeaderBlock,
             absl::StrCat(frame, ": ", parsed.status().message()));
    return false;
  }
  *headers = std::move(*parsed);
  return true;
}

void SpdyDeframer::ParseSynStream(absl::string_view payload) {
  if (!CheckFlags(kSpdyFlagFin | kSpdyFlagUnidirectional)) return;
  CBS cbs = ToCbs(payload);
  uint32_t stream_id, associated;
  uint8_t priority, slot;
  if (!CBS_get_u32(&cbs, &stream_id) || !CBS_get_u32(&cbs, &associated) ||
      !CBS_get_u8(&cbs, &priority) || !CBS_get_u8(&cbs, &slot)) {
    return SetBadLength(payload.size(), "at least 10");
  }
  SpdySynStreamIR frame;
  frame.stream_id = stream_id & kSpdyStreamIdMask;
  frame.associated_stream_id = associated & kSpdyStreamIdMask;
  frame.priority = priority >> 5;  // the low 5 bits are unused
  frame.slot = slot;
  frame.fin = (flags_ & kSpdyFlagFin) != 0;
  frame.unidirectional = (flags_ & kSpdyFlagUnidirectional) != 0;
  if (!CheckStreamId(frame.stream_id) ||
      !DecodeHeaderBlock(View(cbs), &frame.headers)) {
    return;
  }
  visitor_->OnSynStream(frame);
}

void SpdyDeframer::ParseSynReply(absl::string_view payload) {
  SpdySynReplyIR frame;
  if (!ParseStreamIdAndHeaders(payload, &frame)) return;
  visitor_->OnSynReply(frame);
}

void SpdyDeframer::ParseRstStream(absl::string_view payload) {
  if (!CheckFlags(0)) return;
  uint32_t stream_id, status;
  if (!ReadTwoU32(payload, &stream_id, &status)) return;
  SpdyRstStreamIR frame;
  frame.stream_id = stream_id & kSpdyStreamIdMask;
  frame.status = static_cast<SpdyRstStreamStatus>(status);
  if (!CheckStreamId(frame.stream_id)) return;
  if (status == 0) return SetInvalidFrame("with status 0");
  visitor_->OnRstStream(frame);
}

void SpdyDeframer::ParseSettings(absl::string_view payload) {
  if (!CheckFlags(kSpdyFlagSettingsClearSettings)) return;
  CBS cbs = ToCbs(payload);
  uint32_t count;
  if (!CBS_get_u32(&cbs, &count) || CBS_len(&cbs) % 8 != 0 ||
      CBS_len(&cbs) / 8 != count) {
    return SetInvalidFrame(absl::StrCat(
        "of ", payload.size(), " bytes does not hold its entry count"));
  }
  SpdySettingsIR frame;
  frame.clear_settings = (flags_ & kSpdyFlagSettingsClearSettings) != 0;
  frame.entries.reserve(count);
  const uint8_t kKnownEntryFlags =
      kSpdySettingsFlagPersistValue | kSpdySettingsFlagPersisted;
  for (uint32_t i = 0; i < count; ++i) {
    SpdySettingsEntry entry;
    // Cannot fail: the length was checked above.
    CBS_get_u8(&cbs, &entry.flags);
    CBS_get_u24(&cbs, &entry.id);
    CBS_get_u32(&cbs, &entry.value);
    if (entry.flags & ~kKnownEntryFlags) {
      return SetInvalidFrame(
          absl::StrCat("entry ", entry.id, " with flags ", entry.flags));
    }
    frame.entries.push_back(entry);
  }
  visitor_->OnSettings(frame);
}

void SpdyDeframer::ParsePing(absl::string_view payload) {
  if (!CheckFlags(0)) return;
  CBS cbs = ToCbs(payload);
  SpdyPingIR frame;
  if (payload.size() != 4 || !CBS_get_u32(&cbs, &frame.id)) {
    return SetBadLength(payload.size(), "must be 4");
  }
  visitor_->OnPing(frame);
}

void SpdyDeframer::ParseGoAway(absl::string_view payload) {
  if (!CheckFlags(0)) return;
  uint32_t last_good, status;
  if (!ReadTwoU32(payload, &last_good, &status)) return;
  SpdyGoAwayIR frame;
  frame.last_good_stream_id = last_good & kSpdyStreamIdMask;
  frame.status = static_cast<SpdyGoAwayStatus>(status);
  visitor_->OnGoAway(frame);
}

void SpdyDeframer::ParseHeaders(absl::string_view payload) {
  SpdyHeadersIR frame;
  if (!ParseStreamIdAndHeaders(payload, &frame)) return;
  visitor_->OnHeaders(frame);
}

void SpdyDeframer::ParseWindowUpdate(absl::string_view payload) {
  if (!CheckFlags(0)) return;
  uint32_t stream_id, delta;
  if (!ReadTwoU32(payload, &stream_id, &delta)) return;
  SpdyWindowUpdateIR frame;
  frame.stream_id = stream_id & kSpdyStreamIdMask;
  frame.delta = delta & kSpdyMaxWindowDelta;
  // Stream 0 is SPDY/3.1's session window, which SPDY/3 does not have.
  if (!CheckStreamId(frame.stream_id)) return;
  if (frame.delta == 0) return SetInvalidFrame("with delta 0");
  visitor_->OnWindowUpdate(frame);
}

void SpdyDeframer::ParseCredential(absl::string_view payload) {
  if (!CheckFlags(0)) return;
  CBS cbs = ToCbs(payload);
  SpdyCredentialIR frame;
  uint32_t proof_length;
  CBS proof;
  if (!CBS_get_u16(&cbs, &frame.slot) || !CBS_get_u32(&cbs, &proof_length) ||
      !CBS_get_bytes(&cbs, &proof, proof_length)) {
    return SetInvalidFrame("truncated before its certificates");
  }
  if (frame.slot == 0) {
    return SetInvalidFrame("for slot 0");
  }
  frame.proof = std::string(View(proof));
  while (CBS_len(&cbs) != 0) {
    if (frame.certificates.size() == limits_.max_credential_certificates) {
      return SetError(
          SpdyDeframerError::kFrameTooLarge,
          absl::StrCat("CREDENTIAL with more than ",
                       limits_.max_credential_certificates, " certificates"));
    }
    uint32_t cert_length;
    CBS cert;
    if (!CBS_get_u32(&cbs, &cert_length) ||
        !CBS_get_bytes(&cbs, &cert, cert_length)) {
      return SetInvalidFrame("certificate overruns the frame");
    }
    if (cert_length == 0) {
      return SetInvalidFrame("with an empty certificate");
    }
    frame.certificates.emplace_back(View(cert));
  }
  if (frame.certificates.empty()) {
    return SetInvalidFrame("without a certificate");
  }
  visitor_->OnCredential(frame);
}

void SpdyDeframer::SetError(SpdyDeframerError error, std::string detail) {
  state_ = State::kError;
  error_ = error;
  error_detail_ = std::move(detail);
  control_payload_.clear();
  control_payload_.shrink_to_fit();
  visitor_->OnError(error_, error_detail_);
}

}  // namespace net
