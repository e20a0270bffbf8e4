# Cross-compiles stepstat for 64-bit Windows on a Debian host with Debian's mingw-w64 g++
# (the posix thread model: std::thread and std::mutex need it). The libraries Debian ships no
# Windows build of are built from Debian's source packages into STEPSTAT_WINDOWS_DEPS by
# scripts/cross-windows, which also uses this file for them. Everything links statically, so
# stepstat.exe is one file a user can copy. Test binaries run under wine, so ctest and
# gtest_discover_tests work unchanged.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

# Libraries and headers only from the deps prefix and the mingw-w64 sysroot (zlib comes from
# Debian's libz-mingw-w64-dev there); programs (pkg-config, wine) are the host's.
set(CMAKE_FIND_ROOT_PATH ${STEPSTAT_WINDOWS_DEPS} /usr/x86_64-w64-mingw32)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES STEPSTAT_WINDOWS_DEPS)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# One self-contained .exe: libstdc++, libgcc and winpthread linked in, and zlib's static
# archive rather than its import library (libz.dll.a would need zlib1.dll beside the .exe).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(ZLIB_USE_STATIC_LIBS ON)

# pkg-config (RE2, zstd) reads only the deps' .pc files, never the host's.
if(STEPSTAT_WINDOWS_DEPS)
  set(ENV{PKG_CONFIG_LIBDIR} "${STEPSTAT_WINDOWS_DEPS}/lib/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
endif()

# scripts/wine-run: wine64 with a prefix of its own and its chatter off.
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../scripts/wine-run)
