#include "tools/fetch/exit_codes.h"

#include <iterator>

#include "net/base/net_errors.h"

namespace net {
namespace {

constexpr int kExitOther = 1;
constexpr int kExitDns = 6;
constexpr int kExitConnect = 7;
constexpr int kExitMalformedHttp = 8;
constexpr int kExitSpdy = 16;
constexpr int kExitPartialBody = 18;
constexpr int kExitTimeout = 28;
constexpr int kExitTls = 35;
constexpr int kExitTooManyRedirects = 47;
constexpr int kExitEmptyResponse = 52;
constexpr int kExitProxyTunnel = 56;
constexpr int kExitObc = 58;
constexpr int kExitCertificate = 60;
constexpr int kExitFileTooBig = 63;
constexpr int kExitHttp3 = 95;  // curl's CURLE_HTTP3
constexpr int kExitEch = 101;   // curl's CURLE_ECH_REQUIRED

}  // namespace

const FetchExitCode kFetchExitCodes[] = {
    {0, "ok"},
    {kExitOther, "other"},
    {kExitUsage, "bad usage or config"},
    {kExitBadUrl, "bad URL"},
    {kExitDns, "DNS error (name not resolved)"},
    {kExitConnect, "connection error (refused, reset, unreachable)"},
    {kExitMalformedHttp, "malformed HTTP response"},
    {kExitSpdy, "SPDY error"},
    {kExitPartialBody, "partial body"},
    {kExitHttpError, "HTTP error (--fail)"},
    {kExitWriteError, "write error"},
    {kExitTimeout, "timeout"},
    {kExitTls, "TLS or Snap Start error"},
    {kExitTooManyRedirects, "too many redirects"},
    {kExitEmptyResponse, "empty response"},
    {kExitProxyTunnel, "the proxy refused the tunnel (CONNECT)"},
    {kExitObc, "origin-bound certificate error"},
    {kExitCertificate, "certificate error (also a prefetched bundle's)"},
    {kExitFileTooBig, "maximum file size exceeded"},
    {kExitHttp3, "QUIC or HTTP/3 error"},
    {kExitEch, "ECH not negotiated (rejected after the retry, --ech hard)"},
};
const size_t kFetchExitCodeCount = std::size(kFetchExitCodes);

int ExitCodeForError(int error) {
  // Named exceptions first: curl tells these apart within one range.
  switch (error) {
    case ERR_TIMED_OUT:
    case ERR_CONNECTION_TIMED_OUT:
      return kExitTimeout;
    case ERR_FILE_TOO_BIG:
      return kExitFileTooBig;
    case ERR_FILE_WRITE_FAILED:
      return kExitWriteError;
    case ERR_INVALID_URL:
    case ERR_UNKNOWN_URL_SCHEME:
      return kExitBadUrl;
    case ERR_EMPTY_RESPONSE:
      return kExitEmptyResponse;
    case ERR_CONTENT_LENGTH_MISMATCH:
    case ERR_INCOMPLETE_CHUNKED_ENCODING:
      return kExitPartialBody;
    case ERR_TOO_MANY_REDIRECTS:
      return kExitTooManyRedirects;
    // curl's CURLE_RECV_ERROR for a CONNECT answered with anything but 2xx
    // (a 407 included).
    case ERR_TUNNEL_CONNECTION_FAILED:
    case ERR_PROXY_AUTH_REQUESTED:
      return kExitProxyTunnel;
    case ERR_ECH_NOT_NEGOTIATED:
    case ERR_ECH_FALLBACK_CERTIFICATE_INVALID:
      return kExitEch;
    default:
      break;
  }
  switch (GetNetErrorArea(error)) {
    case NetErrorArea::kOk:
      return 0;
    case NetErrorArea::kGeneric:
      return kExitOther;
    case NetErrorArea::kConnection:
      return kExitConnect;
    case NetErrorArea::kCertificate:
      return kExitCertificate;
    case NetErrorArea::kHttp:
      return kExitMalformedHttp;
    case NetErrorArea::kDns:
      return kExitDns;
    case NetErrorArea::kTls:
      return kExitTls;
    case NetErrorArea::kSpdy:
      return kExitSpdy;
    case NetErrorArea::kPrefetch:
      return kExitCertificate;
    case NetErrorArea::kSnapStart:
      return kExitTls;
    case NetErrorArea::kObc:
      return kExitObc;
    case NetErrorArea::kQuic:
      return kExitHttp3;
    case NetErrorArea::kUnknown:
      break;
  }
  return kExitOther;
}

}  // namespace net
