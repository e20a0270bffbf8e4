# Cross-compiles stepstat for aarch64 Linux (DGX Spark / GB10) on an x86-64 Debian host, with
# Debian's cross g++ and the arm64 -dev packages installed through multiarch (they live in
# /usr/lib/aarch64-linux-gnu and /usr/include). Test binaries run under qemu-user, so ctest
# and gtest_discover_tests work unchanged. scripts/cross-aarch64 installs all of this.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries, headers and CMake package configs come only from the arm64 side: multiarch puts
# them under /, so / is a root too, and CMAKE_LIBRARY_ARCHITECTURE keeps the search in
# lib/aarch64-linux-gnu (never lib/x86_64-linux-gnu). Programs (pkg-config, qemu) are the host's.
# STEPSTAT_AARCH64_EXTRA_ROOT: arm64 -dev files unpacked rather than installed (simdjson,
# whose -dev package would replace the host's), searched first.
set(CMAKE_FIND_ROOT_PATH ${STEPSTAT_AARCH64_EXTRA_ROOT} /usr/aarch64-linux-gnu /)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES STEPSTAT_AARCH64_EXTRA_ROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (RE2, zstd) must read the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# -L /: run with the arm64 dynamic loader and libc that multiarch installed (libc6:arm64, in
# /lib/aarch64-linux-gnu), where the other arm64 libraries are too. Not -L /usr/aarch64-linux-gnu:
# that loader comes from the cross toolchain's libc (another Debian revision) but would load
# libc.so.6 from /lib/aarch64-linux-gnu, and that mismatched pair hangs in pthread_create.
find_program(STEPSTAT_QEMU_AARCH64 qemu-aarch64-static qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${STEPSTAT_QEMU_AARCH64} -L /)
