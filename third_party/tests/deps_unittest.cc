#include <ares.h>
#include <brotli/decode.h>
#include <brotli/encode.h>
#include <libpsl.h>
#include <nghttp2/nghttp2.h>
#include <openssl/is_boringssl.h>
#include <openssl/ssl.h>
#include <zlib.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "third_party/tests/deps_probe.pb.h"

// The include path must put BoringSSL ahead of OpenSSL 3's /usr/include.
#if !defined(OPENSSL_IS_BORINGSSL)
#error \
    "openssl/ssl.h is not BoringSSL: an OpenSSL 3 header leaked onto the include path"
#endif
// Proves every Debian dependency compiles and links through its wrapper.
TEST(ThirdPartyTest, EveryDependencyLinks) {
  bssl::UniquePtr<SSL_CTX> ctx(SSL_CTX_new(TLS_method()));
  ASSERT_TRUE(ctx);
  absl::StatusOr<int> s = 3;
  EXPECT_EQ(absl::StrCat("a", *s), "a3");
  EXPECT_EQ(ares_library_init(ARES_LIB_INIT_ALL), ARES_SUCCESS);
  netstack_probe::M m;
  m.set_s("x");
  EXPECT_EQ(m.s(), "x");
  EXPECT_NE(zlibVersion(), nullptr);
  // net/http2 uses nghttp2 1.52's API (nghttp2_session_mem_send2 is 1.60's).
  EXPECT_NE(nghttp2_version(0x013400), nullptr);
  EXPECT_NE(BrotliEncoderVersion(), 0u);
  EXPECT_NE(BrotliDecoderVersion(), 0u);
  // Debian's publicsuffix list, through libpsl.
  psl_ctx_t* psl = psl_latest(nullptr);
  ASSERT_NE(psl, nullptr);
  EXPECT_TRUE(psl_is_public_suffix(psl, "github.io"));
  psl_free(psl);
}
