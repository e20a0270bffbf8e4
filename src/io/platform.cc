#include "stepstat/platform.h"

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <windows.h>
// shellapi.h needs windows.h first.
#include <shellapi.h>

#include "io/windows_text.h"
#endif

namespace stepstat {

ProgramArguments::ProgramArguments(int argc, char** argv) {
#if defined(_WIN32)
  int count = 0;
  if (wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count); wide != nullptr) {
    for (int i = 0; i < count; ++i) args_.push_back(Utf8FromWide(wide[i]));
    LocalFree(wide);
  }
  // Should the wide command line be unavailable, the narrow one is still a command line.
  if (args_.empty()) args_.assign(argv, argv + argc);
#else
  args_.assign(argv, argv + argc);
#endif
  for (std::string& arg : args_) pointers_.push_back(arg.data());
  pointers_.push_back(nullptr);
}

void UseBinaryStandardStreams() {
#if defined(_WIN32)
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
#endif
}

}  // namespace stepstat
