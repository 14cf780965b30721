#include "net/base/framed_file.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

constexpr uint32_t kMagic = 0x54534554;  // "TEST"

TEST(FramedFileTest, RoundTrips) {
  for (const std::string& payload :
       {std::string(), std::string("x"), std::string(127, 'a'),
        std::string(128, 'b'), std::string(100000, '\0')}) {
    std::string file = FrameFileContents(kMagic, 1, payload);
    absl::StatusOr<std::string> back = UnframeFileContents(file, kMagic, 1);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, payload);
  }
}

// The frame is the canonical protobuf encoding of {fixed32 magic = 1;
// uint32 version = 2; bytes payload = 3; bytes payload_sha256 = 4}.
TEST(FramedFileTest, IsTheCanonicalProtobufEncoding) {
  std::string file = FrameFileContents(0x314a4b43, 300, "hi");
  ASSERT_EQ(file.size(), 1 + 4 + 1 + 2 + 1 + 1 + 2 + 1 + 1 + 32);
  EXPECT_EQ(file.substr(0, 13), std::string("\x0d"
                                            "CKJ1"
                                            "\x10\xac\x02"
                                            "\x1a\x02"
                                            "hi"
                                            "\x22\x20",
                                            13));
  // Empty payload: the field is omitted, as protobuf does.
  EXPECT_EQ(FrameFileContents(kMagic, 1, "").size(), 1 + 4 + 2 + 2 + 32);
}

TEST(FramedFileTest, EveryTruncationIsDetected) {
  for (const std::string& payload : {std::string(), std::string(200, 'p')}) {
    const std::string file = FrameFileContents(kMagic, 1, payload);
    for (size_t n = 0; n < file.size(); ++n) {
      absl::StatusOr<std::string> got =
          UnframeFileContents(file.substr(0, n), kMagic, 1);
      ASSERT_TRUE(absl::IsDataLoss(got.status()))
          << "cut to " << n << " of " << file.size();
    }
  }
}

TEST(FramedFileTest, EveryFlippedBitIsDetected) {
  const std::string file = FrameFileContents(kMagic, 1, "some payload bytes");
  for (size_t i = 0; i < file.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = file;
      bad[i] ^= static_cast<char>(1 << bit);
      ASSERT_TRUE(
          absl::IsDataLoss(UnframeFileContents(bad, kMagic, 1).status()))
          << "byte " << i << " bit " << bit;
    }
  }
}

TEST(FramedFileTest, NamesWhatIsWrong) {
  const std::string file = FrameFileContents(kMagic, 1, "payload");
  auto why = [](absl::StatusOr<std::string> got) {
    return std::string(got.status().message());
  };
  EXPECT_EQ(why(UnframeFileContents("", kMagic, 1)), "empty file");
  EXPECT_EQ(why(UnframeFileContents(file, kMagic + 1, 1)), "bad magic");
  EXPECT_EQ(why(UnframeFileContents(file, kMagic, 2)), "unknown version 1");
  EXPECT_EQ(
      why(UnframeFileContents(file.substr(0, file.size() - 1), kMagic, 1)),
      "truncated");
  EXPECT_EQ(why(UnframeFileContents(file + "x", kMagic, 1)),
            "bytes after the frame");
  EXPECT_EQ(why(UnframeFileContents(file + file, kMagic, 1)),
            "bytes after the frame");
  std::string bad = file;
  bad[9] ^= 1;  // inside the payload
  EXPECT_EQ(why(UnframeFileContents(bad, kMagic, 1)), "checksum mismatch");
  EXPECT_EQ(
      std::string(
          CorruptFileError("/p/f", "truncated", "move it away").message()),
      "/p/f is corrupt (truncated); it was left untouched: move it away");
}

}  // namespace
}  // namespace net
