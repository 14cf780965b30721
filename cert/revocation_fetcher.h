// RevocationFetcher: how the revocation checker gets OCSP responses and CRLs
// — net/base's UrlFetcher (an HTTP GET, or a POST with a body). The
// implementation over net/http is net/cert_net's HttpUrlFetcher (kept out of
// cert/, which sits below net/http); tests substitute a scripted one.

#ifndef CERT_REVOCATION_FETCHER_H_
#define CERT_REVOCATION_FETCHER_H_

#include "net/base/url_fetcher.h"

namespace net {

using RevocationFetcher = UrlFetcher;

}  // namespace net

#endif  // CERT_REVOCATION_FETCHER_H_
