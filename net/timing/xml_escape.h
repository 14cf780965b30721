// XmlEscape: text and attribute values for hand-written XML and SVG (the
// waterfall, the experiments' plots).

#ifndef NET_TIMING_XML_ESCAPE_H_
#define NET_TIMING_XML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace net {

// XmlEscape makes |s| safe in XML text and attribute values: markup
// characters and both quotes escaped, control characters XML 1.0 forbids
// replaced by '?'. Bytes from 0x80 up pass through unchanged: text that may
// not be valid UTF-8 wants ToValidUtf8 (net/timing/phases.h) first.
std::string XmlEscape(absl::string_view s);

}  // namespace net

#endif  // NET_TIMING_XML_ESCAPE_H_
