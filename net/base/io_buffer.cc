#include "net/base/io_buffer.h"

namespace net {

IOBuffer::IOBuffer(size_t size) : storage_(size) {}

IOBuffer::IOBuffer(absl::string_view contents)
    : storage_(contents.begin(), contents.end()) {}

DrainableIOBuffer::DrainableIOBuffer(absl::string_view contents)
    : IOBuffer(contents) {}

}  // namespace net
