#pragma once
// Whether this test binary is built with AddressSanitizer (make asan): a few tests bound memory
// differently under it, since its shadow memory needs terabytes of address space (test helper).

namespace braid::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace braid::test
