#include "net/spdy/spdy_protocol.h"

#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace net {

std::string ToString(SpdyFrameType type) {
  switch (type) {
    case SpdyFrameType::kData:
      return "DATA";
    case SpdyFrameType::kSynStream:
      return "SYN_STREAM";
    case SpdyFrameType::kSynReply:
      return "SYN_REPLY";
    case SpdyFrameType::kRstStream:
      return "RST_STREAM";
    case SpdyFrameType::kSettings:
      return "SETTINGS";
    case SpdyFrameType::kPing:
      return "PING";
    case SpdyFrameType::kGoAway:
      return "GOAWAY";
    case SpdyFrameType::kHeaders:
      return "HEADERS";
    case SpdyFrameType::kWindowUpdate:
      return "WINDOW_UPDATE";
    case SpdyFrameType::kCredential:
      return "CREDENTIAL";
  }
  return absl::StrCat("UNKNOWN(", static_cast<uint16_t>(type), ")");
}

std::string ToString(SpdyRstStreamStatus status) {
  switch (status) {
    case SpdyRstStreamStatus::kProtocolError:
      return "PROTOCOL_ERROR";
    case SpdyRstStreamStatus::kInvalidStream:
      return "INVALID_STREAM";
    case SpdyRstStreamStatus::kRefusedStream:
      return "REFUSED_STREAM";
    case SpdyRstStreamStatus::kUnsupportedVersion:
      return "UNSUPPORTED_VERSION";
    case SpdyRstStreamStatus::kCancel:
      return "CANCEL";
    case SpdyRstStreamStatus::kInternalError:
      return "INTERNAL_ERROR";
    case SpdyRstStreamStatus::kFlowControlError:
      return "FLOW_CONTROL_ERROR";
    case SpdyRstStreamStatus::kStreamInUse:
      return "STREAM_IN_USE";
    case SpdyRstStreamStatus::kStreamAlreadyClosed:
      return "STREAM_ALREADY_CLOSED";
    case SpdyRstStreamStatus::kInvalidCredentials:
      return "INVALID_CREDENTIALS";
    case SpdyRstStreamStatus::kFrameTooLarge:
      return "FRAME_TOO_LARGE";
  }
  return absl::StrCat("UNKNOWN(", static_cast<uint32_t>(status), ")");
}

std::string ToString(SpdyGoAwayStatus status) {
  switch (status) {
    case SpdyGoAwayStatus::kOk:
      return "OK";
    case SpdyGoAwayStatus::kProtocolError:
      return "PROTOCOL_ERROR";
    case SpdyGoAwayStatus::kInternalError:
      return "INTERNAL_ERROR";
  }
  return absl::StrCat("UNKNOWN(", static_cast<uint32_t>(status), ")");
}

std::string ToString(SpdySettingsId id) {
  switch (id) {
    case SpdySettingsId::kUploadBandwidth:
      return "UPLOAD_BANDWIDTH";
    case SpdySettingsId::kDownloadBandwidth:
      return "DOWNLOAD_BANDWIDTH";
    case SpdySettingsId::kRoundTripTime:
      return "ROUND_TRIP_TIME";
    case SpdySettingsId::kMaxConcurrentStreams:
      return "MAX_CONCURRENT_STREAMS";
    case SpdySettingsId::kCurrentCwnd:
      return "CURRENT_CWND";
    case SpdySettingsId::kDownloadRetransRate:
      return "DOWNLOAD_RETRANS_RATE";
    case SpdySettingsId::kInitialWindowSize:
      return "INITIAL_WINDOW_SIZE";
    case SpdySettingsId::kClientCertificateVectorSize:
      return "CLIENT_CERTIFICATE_VECTOR_SIZE";
  }
  return absl::StrCat("UNKNOWN(", static_cast<uint32_t>(id), ")");
}

SpdyFrameType FrameType(const SpdyFrameIR& frame) {
  struct Visitor {
    SpdyFrameType operator()(const SpdyDataIR&) { return SpdyFrameType::kData; }
    SpdyFrameType operator()(const SpdySynStreamIR&) {
      return SpdyFrameType::kSynStream;
    }
    SpdyFrameType operator()(const SpdySynReplyIR&) {
      return SpdyFrameType::kSynReply;
    }
    SpdyFrameType operator()(const SpdyRstStreamIR&) {
      return SpdyFrameType::kRstStream;
    }
    SpdyFrameType operator()(const SpdySettingsIR&) {
      return SpdyFrameType::kSettings;
    }
    SpdyFrameType operator()(const SpdyPingIR&) { return SpdyFrameType::kPing; }
    SpdyFrameType operator()(const SpdyGoAwayIR&) {
      return SpdyFrameType::kGoAway;
    }
    SpdyFrameType operator()(const SpdyHeadersIR&) {
      return SpdyFrameType::kHeaders;
    }
    SpdyFrameType operator()(const SpdyWindowUpdateIR&) {
      return SpdyFrameType::kWindowUpdate;
    }
    SpdyFrameType operator()(const SpdyCredentialIR&) {
      return SpdyFrameType::kCredential;
    }
  };
  return std::visit(Visitor(), frame);
}

bool operator==(const SpdyDataIR& a, const SpdyDataIR& b) {
  return std::tie(a.stream_id, a.data, a.fin) ==
         std::tie(b.stream_id, b.data, b.fin);
}
bool operator==(const SpdySynStreamIR& a, const SpdySynStreamIR& b) {
  return std::tie(a.stream_id, a.associated_stream_id, a.priority, a.slot,
                  a.fin, a.unidirectional, a.headers) ==
         std::tie(b.stream_id, b.associated_stream_id, b.priority, b.slot,
                  b.fin, b.unidirectional, b.headers);
}
bool operator==(const SpdySynReplyIR& a, const SpdySynReplyIR& b) {
  return std::tie(a.stream_id, a.fin, a.headers) ==
         std::tie(b.stream_id, b.fin, b.headers);
}
bool operator==(const SpdyRstStreamIR& a, const SpdyRstStreamIR& b) {
  return a.stream_id == b.stream_id && a.status == b.status;
}
bool operator==(const SpdySettingsEntry& a, const SpdySettingsEntry& b) {
  return std::tie(a.flags, a.id, a.value) == std::tie(b.flags, b.id, b.value);
}
bool operator==(const SpdySettingsIR& a, const SpdySettingsIR& b) {
  return a.clear_settings == b.clear_settings && a.entries == b.entries;
}
bool operator==(const SpdyPingIR& a, const SpdyPingIR& b) {
  return a.id == b.id;
}
bool operator==(const SpdyGoAwayIR& a, const SpdyGoAwayIR& b) {
  return a.last_good_stream_id == b.last_good_stream_id && a.status == b.status;
}
bool operator==(const SpdyHeadersIR& a, const SpdyHeadersIR& b) {
  return std::tie(a.stream_id, a.fin, a.headers) ==
         std::tie(b.stream_id, b.fin, b.headers);
}
bool operator==(const SpdyWindowUpdateIR& a, const SpdyWindowUpdateIR& b) {
  return a.stream_id == b.stream_id && a.delta == b.delta;
}
bool operator==(const SpdyCredentialIR& a, const SpdyCredentialIR& b) {
  return std::tie(a.slot, a.proof, a.certificates) ==
         std::tie(b.slot, b.proof, b.certificates);
}

namespace {

std::string HeadersToString(const SpdyHeaderBlock& headers) {
  std::string out = "{";
  for (const auto& [name, value] : headers) {
    if (out.size() > 1) out += ", ";
    absl::StrAppend(&out, absl::CHexEscape(name), ": ",
                    absl::CHexEscape(value));
  }
  return out + "}";
}

const char* Fin(bool fin) { return fin ? " fin" : ""; }

}  // namespace

std::string FrameToString(const SpdyFrameIR& frame) {
  struct Visitor {
    std::string operator()(const SpdyDataIR& f) {
      return absl::StrCat("DATA stream=", f.stream_id, " len=", f.data.size(),
                          Fin(f.fin));
    }
    std::string operator()(const SpdySynStreamIR& f) {
      return absl::StrCat("SYN_STREAM stream=", f.stream_id,
                          " assoc=", f.associated_stream_id,
                          " pri=", f.priority, " slot=", f.slot, Fin(f.fin),
                          f.unidirectional ? " unidirectional" : "",
                          " headers=", HeadersToString(f.headers));
    }
    std::string operator()(const SpdySynReplyIR& f) {
      return absl::StrCat("SYN_REPLY stream=", f.stream_id, Fin(f.fin),
                          " headers=", HeadersToString(f.headers));
    }
    std::string operator()(const SpdyRstStreamIR& f) {
      return absl::StrCat("RST_STREAM stream=", f.stream_id,
                          " status=", ToString(f.status));
    }
    std::string operator()(const SpdySettingsIR& f) {
      std::string out = absl::StrCat(
          "SETTINGS", f.clear_settings ? " clear_settings" : "", " {");
      for (size_t i = 0; i < f.entries.size(); ++i) {
        const SpdySettingsEntry& e = f.entries[i];
        absl::StrAppend(&out, i ? ", " : "",
                        ToString(static_cast<SpdySettingsId>(e.id)), "=",
                        e.value);
        if (e.flags) absl::StrAppend(&out, " (flags ", e.flags, ")");
      }
      return out + "}";
    }
    std::string operator()(const SpdyPingIR& f) {
      return absl::StrCat("PING id=", f.id);
    }
    std::string operator()(const SpdyGoAwayIR& f) {
      return absl::StrCat("GOAWAY last_good=", f.last_good_stream_id,
                          " status=", ToString(f.status));
    }
    std::string operator()(const SpdyHeadersIR& f) {
      return absl::StrCat("HEADERS stream=", f.stream_id, Fin(f.fin),
                          " headers=", HeadersToString(f.headers));
    }
    std::string operator()(const SpdyWindowUpdateIR& f) {
      return absl::StrCat("WINDOW_UPDATE stream=", f.stream_id,
                          " delta=", f.delta);
    }
    std::string operator()(const SpdyCredentialIR& f) {
      return absl::StrCat("CREDENTIAL slot=", f.slot,
                          " proof_len=", f.proof.size(),
                          " certificates=", f.certificates.size());
    }
  };
  return std::visit(Visitor(), frame);
}

}  // namespace net
