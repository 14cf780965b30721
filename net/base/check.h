// NET_DCHECK(cond) and NET_NOTREACHED(): debug checks of invariants.
//
// They are compiled in when NDEBUG is not defined (Bazel's fastbuild and dbg
// modes, so every normal test run) or when NETSTACK_DCHECK is defined (the
// .bazelrc sanitizer configs set it, so that -c opt builds under a sanitizer
// check too). A failed check prints "FILE:LINE: Check failed: COND" to
// stderr and aborts. When they are compiled out, the condition is still
// compiled (it cannot rot) but never evaluated, so it may be expensive; it
// must have no side effects the program relies on.
//
//   NET_DCHECK(offset <= size);
//   switch (state) { ...; default: NET_NOTREACHED(); }
//
// NET_DCHECK_IS_ON() tells code (and tests) which is the case.

#ifndef NET_BASE_CHECK_H_
#define NET_BASE_CHECK_H_

#if !defined(NDEBUG) || defined(NETSTACK_DCHECK)
#define NET_DCHECK_IS_ON() 1
#else
#define NET_DCHECK_IS_ON() 0
#endif

namespace net {
namespace internal {

[[noreturn]] void DCheckFailed(const char* condition, const char* file,
                               int line);

}  // namespace internal
}  // namespace net

#define NET_DCHECK(condition)                                        \
  do {                                                               \
    if (NET_DCHECK_IS_ON() && !(condition))                          \
      ::net::internal::DCheckFailed(#condition, __FILE__, __LINE__); \
  } while (0)

#define NET_NOTREACHED()                                               \
  do {                                                                 \
    if (NET_DCHECK_IS_ON())                                            \
      ::net::internal::DCheckFailed("NOTREACHED", __FILE__, __LINE__); \
  } while (0)

#endif  // NET_BASE_CHECK_H_
