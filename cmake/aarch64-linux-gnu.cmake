# Cross-compiling the wheel's binary for 64-bit ARM (DGX Spark / GB10, GH200, GB200 hosts) with
# Debian's cross toolchain (g++-aarch64-linux-gnu) and multiarch libraries (the :arm64 -dev
# packages scripts/install-deps.sh --aarch64 installs). Binaries run here under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
