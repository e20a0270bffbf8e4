#include "readers/launch_api.h"

#include <array>

namespace stepstat {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Removes one trailing "_v<digits>" if present.
std::string_view StripVersion(std::string_view name) {
  size_t digits = 0;
  while (digits < name.size() && IsDigit(name[name.size() - 1 - digits])) ++digits;
  if (digits == 0 || name.size() < digits + 3) return name;  // keep a name that is all suffix
  std::string_view head = name.substr(0, name.size() - digits);
  if (head.ends_with("_v")) return head.substr(0, head.size() - 2);
  return name;
}

}  // namespace

std::string_view StripCudaApiSuffixes(std::string_view name) {
  for (;;) {
    std::string_view shorter = StripVersion(name);
    if (shorter.ends_with("_ptsz")) shorter.remove_suffix(5);
    if (shorter.size() == name.size()) return name;
    name = shorter;
  }
}

std::string_view CudaApiDisplayName(std::string_view name) { return StripVersion(name); }

bool IsKernelLaunchApi(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kPrefixes = {
      "cudaLaunchKernel",          "cuLaunchKernel",  "cudaLaunchCooperativeKernel",
      "cuLaunchCooperativeKernel", "cudaGraphLaunch", "cuGraphLaunch"};
  std::string_view base = StripCudaApiSuffixes(name);
  for (std::string_view prefix : kPrefixes) {
    if (base.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace stepstat
