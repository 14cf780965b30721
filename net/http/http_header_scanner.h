// HttpHeaderScanner: finds where an HTTP/1.x response header block ends as
// its bytes arrive, looking at every byte exactly once, however the bytes are
// cut into reads (RFC 9112 section 2.2). It only delimits and vets the
// block's lines; HttpResponseHeaders::Parse interprets them.
//
// A line ends in CRLF or in a bare LF (RFC 9112 2.2 lets a recipient accept
// the latter, as browsers do); the block ends at its first empty line. A CR
// not followed by LF ("bare CR"), or a NUL anywhere in the block, is
// ERR_INVALID_HTTP_RESPONSE: RFC 9112 2.2 and RFC 9110 5.5 call them invalid
// and dangerous (a recipient that split lines differently would see other
// headers). The bytes of every block scanned count against one limit
// (interim 1xx responses and the final one together); crossing it is
// ERR_RESPONSE_HEADERS_TOO_BIG, reported at the first byte past the limit.
//
// Sans-I/O and owned by its user (HttpStreamParser keeps one per response;
// Parse uses one to vet a whole block). No allocation.

#ifndef NET_HTTP_HTTP_HEADER_SCANNER_H_
#define NET_HTTP_HTTP_HEADER_SCANNER_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace net {

class HttpHeaderScanner {
 public:
  // |max_bytes| bounds the bytes of all the blocks this scanner sees; it is
  // at most INT_MAX (a larger value means INT_MAX).
  explicit HttpHeaderScanner(size_t max_bytes);

  // Scan continues the current block with |data|, the bytes that follow
  // those of the previous calls. Returns how many bytes of |data| belong to
  // the block: all of them while it is incomplete, or those up to and
  // including its final LF, and then block_complete() is true. Returns
  // ERR_INVALID_HTTP_RESPONSE (bare CR, NUL) or
  // ERR_RESPONSE_HEADERS_TOO_BIG on failure, with error_detail() saying why;
  // a failed scanner stays failed. |data| may be of any size.
  // Once the block is complete, Scan consumes nothing until
  // StartNextBlock().
  int Scan(absl::string_view data);

  // The current block ended with its empty line.
  bool block_complete() const { return state_ == State::kComplete; }
  // Bytes of the current block so far.
  size_t block_size() const { return block_size_; }
  // StartNextBlock begins a new block (after an interim response) whose
  // bytes count against the same limit as the previous ones.
  void StartNextBlock();

  // Bytes of every block so far, against the limit.
  size_t total_bytes() const { return total_bytes_; }
  // Every byte Scan has examined, over the scanner's life: at most
  // total_bytes() + 1 (the byte that crosses the limit or breaks a rule),
  // which tests check to prove each byte is looked at once.
  uint64_t bytes_examined() const { return bytes_examined_; }
  // Why Scan failed ("" before a failure).
  const char* error_detail() const { return error_detail_; }

 private:
  enum class State {
    kInLine,    // in a line (line_empty_ says whether it has a byte yet)
    kAfterCR,   // right after a CR: only LF may follow
    kComplete,  // the empty line has been seen
    kFailed,
  };

  int Fail(int error, const char* why);

  const size_t max_bytes_;
  State state_ = State::kInLine;
  // Whether the current line has any byte before its CR/LF.
  bool line_empty_ = true;
  size_t block_size_ = 0;
  size_t total_bytes_ = 0;
  uint64_t bytes_examined_ = 0;
  int error_ = 0;
  const char* error_detail_ = "";
};

}  // namespace net

#endif  // NET_HTTP_HTTP_HEADER_SCANNER_H_
