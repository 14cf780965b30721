// IOBuffer and friends: heap buffers handed to async Read/Write calls.
//
// An async operation keeps a std::shared_ptr to its buffer, so the caller may
// drop its own reference while the operation is pending.

#ifndef NET_BASE_IO_BUFFER_H_
#define NET_BASE_IO_BUFFER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace net {

// IOBuffer is a fixed-size byte buffer.
class IOBuffer {
 public:
  explicit IOBuffer(size_t size);
  explicit IOBuffer(absl::string_view contents);
  virtual ~IOBuffer() = default;
  IOBuffer(const IOBuffer&) = delete;
  IOBuffer& operator=(const IOBuffer&) = delete;

  // data() points at the current start of the usable region.
  virtual char* data() { return storage_.data(); }
  size_t capacity() const { return storage_.size(); }

 protected:
  std::vector<char> storage_;
};

// DrainableIOBuffer tracks how much of a payload has been consumed, for
// writing a message across several partial writes.
class DrainableIOBuffer : public IOBuffer {
 public:
  explicit DrainableIOBuffer(absl::string_view contents);
  char* data() override { return storage_.data() + used_; }
  void DidConsume(size_t bytes) { used_ += bytes; }
  size_t BytesRemaining() const { return storage_.size() - used_; }
  size_t BytesConsumed() const { return used_; }

 private:
  size_t used_ = 0;
};

// GrowableIOBuffer is a receive buffer: data() points at the free space after
// the bytes already read (offset()), and the buffer can grow.
class GrowableIOBuffer : public IOBuffer {
 public:
  GrowableIOBuffer() : IOBuffer(size_t{0}) {}
  void SetCapacity(size_t capacity) { storage_.resize(capacity); }
  void set_offset(size_t offset) { offset_ = offset; }
  size_t offset() const { return offset_; }
  size_t RemainingCapacity() const { return storage_.size() - offset_; }
  char* data() override { return storage_.data() + offset_; }
  char* StartOfBuffer() { return storage_.data(); }
  absl::string_view Filled() const {
    return absl::string_view(storage_.data(), offset_);
  }

 private:
  size_t offset_ = 0;
};

}  // namespace net

#endif  // NET_BASE_IO_BUFFER_H_
