#include "net/timing/xml_escape.h"

namespace net {

std::string XmlEscape(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out.push_back('?');
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

}  // namespace net
