#include "stepstat/status.h"

#include <string>

namespace stepstat {

std::string PlaceMessage(std::string_view file, long long line, std::string_view what) {
  std::string out(file);
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  out += what;
  return out;
}

}  // namespace stepstat
