#include "net/url_request/content_decoder.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

// zlib counts in uInt: feed and fill at most this much per call.
constexpr size_t kMaxZlibChunk = 1 << 30;

// Gzip and deflate through zlib's inflate.
class ZlibDecoder : public ContentDecoder {
 public:
  explicit ZlibDecoder(ContentCoding coding) : coding_(coding) {}
  ~ZlibDecoder() override {
    if (initialized_) inflateEnd(&z_);
  }

  int Decode(absl::string_view* input, char* out, size_t out_len) override {
    if (finished_) {
      *input = absl::string_view();
      return 0;
    }
    if (!initialized_) {
      int rv = Init(input);
      if (rv <= 0) return rv;
    }
    const bool from_header = !header_.empty();
    absl::string_view in = from_header ? absl::string_view(header_) : *input;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(std::min(in.size(), kMaxZlibChunk));
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min(out_len, kMaxZlibChunk));
    const uInt avail_out = z_.avail_out;
    int rv = inflate(&z_, Z_NO_FLUSH);
    const size_t consumed = in.size() - z_.avail_in;
    if (from_header) {
      // The sniffed bytes go first; the caller's input is untouched until
      // they are taken (inflate takes all it can of its input).
      header_.erase(0, consumed);
    } else {
      input->remove_prefix(consumed);
    }
    const int written = static_cast<int>(avail_out - z_.avail_out);
    switch (rv) {
      case Z_STREAM_END:
        finished_ = true;
        header_.clear();
        *input = absl::string_view();
        return written;
      case Z_OK:
      case Z_BUF_ERROR:  // no progress possible: more input needed
        if (written == 0 && from_header && header_.empty() && !input->empty()) {
          // The sniffed bytes are in; go on with the caller's input.
          return Decode(input, out, out_len);
        }
        return written;
      default:
        error_detail_ = absl::StrCat(ContentCodingName(coding_), ": ",
                                     z_.msg ? z_.msg : "corrupt stream",
                                     " (zlib ", rv, ")");
        return ERR_CONTENT_DECODING_FAILED;
    }
  }

  bool finished() const override { return finished_; }

 private:
  // Picks the format and initialises inflate; for deflate, that needs the
  // first two bytes (kept in header_ until they are). Returns 1 when
  // initialised, 0 when more input is needed, or an error.
  int Init(absl::string_view* input) {
    int window_bits = 15 + 32;  // gzip or zlib header, detected
    if (coding_ == ContentCoding::kDeflate) {
      while (header_.size() < 2 && !input->empty()) {
        header_.push_back(input->front());
        input->remove_prefix(1);
      }
      if (header_.size() < 2) return 0;
      // RFC 1950 2.2: CM 8, CINFO <= 7, FCHECK makes CMF*256+FLG a
      // multiple of 31. Anything else is taken for raw deflate.
      const unsigned cmf = static_cast<unsigned char>(header_[0]);
      const unsigned flg = static_cast<unsigned char>(header_[1]);
      const bool zlib_header =
          (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 == 0;
      window_bits = zlib_header ? 15 : -15;
    }
    if (inflateInit2(&z_, window_bits) != Z_OK) {
      error_detail_ = absl::StrCat(ContentCodingName(coding_),
                                   ": the decoder could not be created");
      return ERR_CONTENT_DECODING_FAILED;
    }
    initialized_ = true;
    return 1;
  }

  const ContentCoding coding_;
  z_stream z_{};
  bool initialized_ = false;
  bool finished_ = false;
  // Deflate's first bytes, taken to sniff the format, not yet inflated.
  std::string header_;
};

class BrotliContentDecoder : public ContentDecoder {
 public:
  BrotliContentDecoder()
      : state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
  ~BrotliContentDecoder() override {
    if (state_) BrotliDecoderDestroyInstance(state_);
  }

  int Decode(absl::string_view* input, char* out, size_t out_len) override {
    if (finished_) {
      *input = absl::string_view();
      return 0;
    }
    if (!state_) {
      error_detail_ = "br: the decoder could not be created";
      return ERR_CONTENT_DECODING_FAILED;
    }
    size_t avail_in = input->size();
    const uint8_t* next_in = reinterpret_cast<const uint8_t*>(input->data());
    size_t avail_out = out_len;
    uint8_t* next_out = reinterpret_cast<uint8_t*>(out);
    BrotliDecoderResult rv = BrotliDecoderDecompressStream(
        state_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    input->remove_prefix(input->size() - avail_in);
    const int written = static_cast<int>(out_len - avail_out);
    switch (rv) {
      case BROTLI_DECODER_RESULT_SUCCESS:
        finished_ = true;
        *input = absl::string_view();
        return written;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
      case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
        return written;
      case BROTLI_DECODER_RESULT_ERROR:
      default:
        error_detail_ = absl::StrCat(
            "br: ",
            BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
        return ERR_CONTENT_DECODING_FAILED;
    }
  }

  bool finished() const override { return finished_; }

 private:
  BrotliDecoderState* state_;
  bool finished_ = false;
};

}  // namespace

const char* ContentCodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kGzip:
      return "gzip";
    case ContentCoding::kDeflate:
      return "deflate";
    case ContentCoding::kBrotli:
      return "br";
  }
  return "?";
}

std::optional<std::vector<ContentCoding>> ParseContentEncoding(
    absl::string_view value) {
  std::vector<ContentCoding> codings;
  for (absl::string_view member : absl::StrSplit(value, ',')) {
    std::string name =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(member));
    if (name.empty() || name == "identity") continue;
    if (name == "gzip" || name == "x-gzip") {
      codings.push_back(ContentCoding::kGzip);
    } else if (name == "deflate") {
      codings.push_back(ContentCoding::kDeflate);
    } else if (name == "br") {
      codings.push_back(ContentCoding::kBrotli);
    } else {
      return std::nullopt;
    }
  }
  return codings;
}

std::unique_ptr<ContentDecoder> ContentDecoder::Create(ContentCoding coding) {
  if (coding == ContentCoding::kBrotli)
    return std::make_unique<BrotliContentDecoder>();
  return std::make_unique<ZlibDecoder>(coding);
}

struct ContentDecoderChain::Stage {
  ContentCoding coding;
  std::unique_ptr<ContentDecoder> decoder;
  // The previous stage's output this stage has not taken yet (unused for
  // stage 0, which reads the encoded input).
  std::string buffer;
  size_t offset = 0;
  // The previous stage's output dropped after this stage's end.
  size_t dropped = 0;
};

ContentDecoderChain::ContentDecoderChain(
    const std::vector<ContentCoding>& codings) {
  // The last coding applied is the first undone.
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    Stage stage;
    stage.coding = *it;
    stage.decoder = ContentDecoder::Create(*it);
    stages_.push_back(std::move(stage));
  }
}

ContentDecoderChain::~ContentDecoderChain() = default;

int ContentDecoderChain::Decode(absl::string_view* input, char* out,
                                size_t out_len) {
  if (stages_.empty()) {
    const size_t n = std::min(input->size(), out_len);
    std::copy_n(input->data(), n, out);
    input->remove_prefix(n);
    return static_cast<int>(n);
  }
  return Pull(stages_.size() - 1, input, out, out_len);
}

int ContentDecoderChain::Pull(size_t index, absl::string_view* input, char* out,
                              size_t out_len) {
  Stage& stage = stages_[index];
  if (index == 0) {
    int rv = stage.decoder->Decode(input, out, out_len);
    if (rv < 0) error_detail_ = stage.decoder->error_detail();
    return rv;
  }
  for (;;) {
    absl::string_view pending(stage.buffer);
    pending.remove_prefix(stage.offset);
    int rv = stage.decoder->Decode(&pending, out, out_len);
    stage.offset = stage.buffer.size() - pending.size();
    if (rv < 0) error_detail_ = stage.decoder->error_detail();
    if (rv != 0) return rv;
    stage.buffer.resize(kStageBufferSize);
    stage.offset = 0;
    if (stage.decoder->finished()) {
      // What comes after this coding's end is dropped, but the codings
      // before it still run to their own ends (a gzip trailer, say).
      for (;;) {
        int dropped =
            Pull(index - 1, input, stage.buffer.data(), stage.buffer.size());
        if (dropped <= 0) {
          stage.buffer.clear();
          return dropped;
        }
        stage.dropped += static_cast<size_t>(dropped);
        if (stage.dropped > kMaxDroppedAfterEnd) {
          error_detail_ = absl::StrCat(
              "more than ", kMaxDroppedAfterEnd, " bytes after the end of the ",
              ContentCodingName(stage.coding), "-encoded stream");
          stage.buffer.clear();
          return ERR_CONTENT_DECODING_FAILED;
        }
      }
    }
    // This stage took all it had and wants more: from the stage before.
    int produced =
        Pull(index - 1, input, stage.buffer.data(), stage.buffer.size());
    stage.buffer.resize(produced > 0 ? produced : 0);
    if (produced <= 0) return produced;
  }
}

int ContentDecoderChain::Finish() {
  for (const Stage& stage : stages_) {
    if (!stage.decoder->finished()) {
      error_detail_ =
          absl::StrCat("the ", ContentCodingName(stage.coding),
                       "-encoded body ended before the end of its stream");
      return ERR_CONTENT_DECODING_FAILED;
    }
  }
  return OK;
}

}  // namespace net
