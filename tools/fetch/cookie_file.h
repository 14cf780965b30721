// Netscape cookie files, as curl's -b FILE reads them and -c FILE writes
// them: one cookie a line, seven tab-separated fields (domain, include
// subdomains, path, secure, expiry in Unix seconds or 0 for a session
// cookie, name, value), "#HttpOnly_" before the domain of an HttpOnly
// cookie, other "#" lines and blank lines ignored. Cookies go in and out of
// the profile's CookieJar through its public rules (a line the jar would
// refuse from a server is refused here too).

#ifndef TOOLS_FETCH_COOKIE_FILE_H_
#define TOOLS_FETCH_COOKIE_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "net/http/cookie_jar.h"

namespace net {

// Reads |text| into |jar|. Returns the number of cookies stored; an error
// names the first malformed line. Lines the jar refuses (a public-suffix
// domain) are listed in |*refused|; expired ones are skipped.
absl::StatusOr<int> ReadNetscapeCookies(const std::string& text, CookieJar* jar,
                                        absl::Time now,
                                        std::vector<std::string>* refused);

// Every unexpired cookie of |jar| in the file format, header first.
std::string WriteNetscapeCookies(const CookieJar& jar, absl::Time now);

// -b FILE...: reads each file into |jar|; refused lines go to |*refused|.
absl::Status LoadCookieFiles(const std::vector<std::string>& files,
                             CookieJar* jar, std::vector<std::string>* refused);
// -c FILE: writes |jar| to |path| ("-": stdout), as curl at the end.
absl::Status SaveCookieFile(const std::string& path, const CookieJar& jar);

}  // namespace net

#endif  // TOOLS_FETCH_COOKIE_FILE_H_
