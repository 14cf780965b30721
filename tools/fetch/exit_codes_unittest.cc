#include "tools/fetch/exit_codes.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"
#include "tools/fetch/fetch_options.h"

namespace net {
namespace {

TEST(ExitCodesTest, NamedFailures) {
  EXPECT_EQ(ExitCodeForError(OK), 0);
  EXPECT_EQ(ExitCodeForError(ERR_INVALID_URL), 3);
  EXPECT_EQ(ExitCodeForError(ERR_UNKNOWN_URL_SCHEME), 3);
  EXPECT_EQ(ExitCodeForError(ERR_NAME_NOT_RESOLVED), 6);
  EXPECT_EQ(ExitCodeForError(ERR_DNS_TIMED_OUT), 6);
  EXPECT_EQ(ExitCodeForError(ERR_CONNECTION_REFUSED), 7);
  EXPECT_EQ(ExitCodeForError(ERR_CONNECTION_RESET), 7);
  EXPECT_EQ(ExitCodeForError(ERR_INVALID_HTTP_RESPONSE), 8);
  EXPECT_EQ(ExitCodeForError(ERR_INVALID_CONTENT_LENGTH), 8);
  EXPECT_EQ(ExitCodeForError(ERR_CONTENT_LENGTH_MISMATCH), 18);
  EXPECT_EQ(ExitCodeForError(ERR_INCOMPLETE_CHUNKED_ENCODING), 18);
  EXPECT_EQ(ExitCodeForError(ERR_FILE_WRITE_FAILED), 23);
  EXPECT_EQ(ExitCodeForError(ERR_TIMED_OUT), 28);
  EXPECT_EQ(ExitCodeForError(ERR_CONNECTION_TIMED_OUT), 28);
  EXPECT_EQ(ExitCodeForError(ERR_TOO_MANY_REDIRECTS), 47);
  EXPECT_EQ(ExitCodeForError(ERR_EMPTY_RESPONSE), 52);
  EXPECT_EQ(ExitCodeForError(ERR_FILE_TOO_BIG), 63);
  // curl's CURLE_ECH_REQUIRED.
  EXPECT_EQ(ExitCodeForError(ERR_ECH_NOT_NEGOTIATED), 101);
  EXPECT_EQ(ExitCodeForError(ERR_ECH_FALLBACK_CERTIFICATE_INVALID), 101);
  EXPECT_EQ(ExitCodeForError(ERR_INVALID_ECH_CONFIG_LIST), 35);
  EXPECT_EQ(ExitCodeForError(ERR_FAILED), 1);
  EXPECT_EQ(ExitCodeForError(-9999), 1);
}

// Every TLS error is a TLS error, whatever its name: no list to keep up.
TEST(ExitCodesTest, DerivedFromTheRange) {
  for (int error :
       {ERR_SSL_PROTOCOL_ERROR, ERR_SSL_CLIENT_AUTH_CERT_NEEDED,
        ERR_SSL_VERSION_OR_CIPHER_MISMATCH, ERR_SSL_HANDSHAKE_CLOSED,
        ERR_SSL_BAD_RECORD_MAC_ALERT, ERR_SSL_HANDSHAKE_FAILED,
        ERR_SSL_SERVER_CERT_MISSING, ERR_SSL_PEER_ALERT}) {
    EXPECT_EQ(ExitCodeForError(error), 35) << ErrorToShortString(error);
  }
  for (int error : {ERR_CERT_COMMON_NAME_INVALID, ERR_CERT_DATE_INVALID,
                    ERR_CERT_AUTHORITY_INVALID, ERR_CERT_REVOKED,
                    ERR_CERT_UNABLE_TO_CHECK_REVOCATION}) {
    EXPECT_EQ(ExitCodeForError(error), 60) << ErrorToShortString(error);
  }
  EXPECT_EQ(ExitCodeForError(ERR_SNAP_START_REJECTED), 35);
  EXPECT_EQ(ExitCodeForError(ERR_SPDY_PROTOCOL_ERROR), 16);
  EXPECT_EQ(ExitCodeForError(ERR_PREFETCH_BUNDLE_INVALID), 60);
  EXPECT_EQ(ExitCodeForError(ERR_OBC_KEY_GENERATION_FAILED), 58);
  EXPECT_EQ(ExitCodeForError(ERR_OBC_CERT_UNAVAILABLE), 58);
  EXPECT_EQ(ExitCodeForError(ERR_OBC_CERT_INSTALL_FAILED), 58);
  EXPECT_EQ(ExitCodeForError(ERR_QUIC_HANDSHAKE_TIMEOUT), 95);
  EXPECT_EQ(ExitCodeForError(ERR_QUIC_IDLE_TIMEOUT), 95);
  EXPECT_EQ(ExitCodeForError(ERR_HTTP3_STREAM_CLOSED), 95);
}

// Every net error gets a documented code, and only the generic range (and
// nothing else) falls back to 1 "other".
TEST(ExitCodesTest, EveryErrorHasADocumentedCode) {
  std::set<int> documented;
  for (size_t i = 0; i < kFetchExitCodeCount; ++i) {
    EXPECT_TRUE(documented.insert(kFetchExitCodes[i].code).second)
        << "duplicate " << kFetchExitCodes[i].code;
    if (i > 0) {
      EXPECT_LT(kFetchExitCodes[i - 1].code, kFetchExitCodes[i].code);
    }
  }
#define NET_ERROR(label, value)                                             \
  if (ERR_##label != ERR_IO_PENDING) {                                      \
    const int code = ExitCodeForError(ERR_##label);                         \
    EXPECT_TRUE(documented.count(code)) << "ERR_" #label << " -> " << code; \
    if (code == 1) {                                                        \
      EXPECT_EQ(GetNetErrorArea(ERR_##label), NetErrorArea::kGeneric)       \
          << "ERR_" #label " exits 1";                                      \
    }                                                                       \
  }
#include "net/base/net_error_list.h"
#undef NET_ERROR
}

// `fetch --help` lists exactly the documented codes.
TEST(ExitCodesTest, HelpListsEveryCode) {
  const std::string usage = kFetchUsage;
  const size_t start = usage.find("Exit codes:");
  ASSERT_NE(start, std::string::npos);
  const std::string section = usage.substr(start);
  for (size_t i = 0; i < kFetchExitCodeCount; ++i) {
    const std::string entry =
        absl::StrCat(kFetchExitCodes[i].code, " ", kFetchExitCodes[i].meaning);
    EXPECT_NE(section.find(entry), std::string::npos)
        << "fetch --help does not say \"" << entry << "\":\n"
        << section;
  }
}

}  // namespace
}  // namespace net
