#pragma once
// Whether this test binary is built with AddressSanitizer (make asan) or ThreadSanitizer
// (make tsan): a few tests bound memory differently under them, since their shadow memory needs
// terabytes of address space (test helper).

#ifdef __has_feature
#define BRAID_TEST_HAS_FEATURE(x) __has_feature(x)
#else
#define BRAID_TEST_HAS_FEATURE(x) 0
#endif

namespace braid::test {

#if defined(__SANITIZE_ADDRESS__) || BRAID_TEST_HAS_FEATURE(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__) || BRAID_TEST_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kUnderThreadSanitizer = true;
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif

/// The environment of a command whose allocations must stay under 1 GiB: an address-space limit,
/// or under a sanitizer (whose shadow needs more address space) its own limit on one allocation.
inline const char* one_gib_memory_limit() {
  if (kUnderAddressSanitizer) return "ASAN_OPTIONS=\"$ASAN_OPTIONS:max_allocation_size_mb=1024\" ";
  if (kUnderThreadSanitizer) return "TSAN_OPTIONS=\"$TSAN_OPTIONS:max_allocation_size_mb=1024\" ";
  return "ulimit -v 1048576 && ";
}

}  // namespace braid::test
