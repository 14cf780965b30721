// Whether this build or run is under a sanitizer, for tests whose timing or
// memory assertions instrumentation makes meaningless (ASan roughly doubles
// run time and adds shadow memory and a quarantine of freed blocks to RSS).
// Such a test does not skip itself: it relaxes or reports the bound and says
// so on stdout (SanitizerNote), so a sanitizer run shows what it did not hold
// the code to.
//
// A build is under a sanitizer when the compiler says so (gcc's
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__, clang's __has_feature) or
// .bazelrc's --config=asan|tsan defined NETSTACK_SANITIZER_BUILD; a run is
// when NETSTACK_SANITIZER is set in the environment (those configs set it
// with --test_env; scripts that start instrumented binaries read it too).

#ifndef NET_BASE_SANITIZER_H_
#define NET_BASE_SANITIZER_H_

#include <cstdio>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NETSTACK_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define NETSTACK_UNDER_SANITIZER 1
#endif
#endif
#if !defined(NETSTACK_UNDER_SANITIZER) && defined(NETSTACK_SANITIZER_BUILD)
#define NETSTACK_UNDER_SANITIZER 1
#endif
#ifndef NETSTACK_UNDER_SANITIZER
#define NETSTACK_UNDER_SANITIZER 0
#endif

namespace net {

// SanitizerName is "asan", "tsan", ... under a sanitizer, null otherwise.
inline const char* SanitizerName() {
  const char* env = std::getenv("NETSTACK_SANITIZER");
  if (env != nullptr && env[0] != '\0') return env;
#if defined(__SANITIZE_THREAD__)
  return "tsan";
#elif NETSTACK_UNDER_SANITIZER
  return "asan";
#else
  return nullptr;
#endif
}

inline bool UnderSanitizer() { return SanitizerName() != nullptr; }

// SanitizerNote prints, under a sanitizer, what a test relaxed and why.
inline void SanitizerNote(const char* what) {
  if (UnderSanitizer())
    std::printf("note: under %s, %s\n", SanitizerName(), what);
}

// SanitizerSlowdown is the factor to widen time bounds by: 1 normally,
// 5 under a sanitizer.
inline int SanitizerSlowdown() { return UnderSanitizer() ? 5 : 1; }

}  // namespace net

#endif  // NET_BASE_SANITIZER_H_
