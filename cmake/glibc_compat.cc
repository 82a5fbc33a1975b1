// Linked into the wheel's binary only (SERVESCOPE_STATIC_DEPS). The static libstdc++ of GCC 12
// brings std::random_device's code (random.o, pulled in through cow-string-inst.o by every
// link), which calls arc4random: glibc exports that only from 2.36, so the binary would need
// glibc 2.36 (no Ubuntu 22.04, no RHEL 9) for a function servescope never calls. This
// definition, from getrandom (glibc 2.25), satisfies the link inside the binary.
#include <sys/random.h>

#include <cstdint>

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
  }
  return value;
}
