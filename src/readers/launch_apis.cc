#include "readers/launch_apis.h"

namespace stepstat {

namespace {

constexpr std::string_view kLaunchApis[] = {
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cudaLaunchCooperativeKernel",
    "cudaLaunchCooperativeKernelMultiDevice",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cuLaunchCooperativeKernel",
    "cudaGraphLaunch",
    "cuGraphLaunch",
};
constexpr std::string_view kLaunchApiPrefix = "cuLaunchGrid";  // cuLaunchGrid, cuLaunchGridAsync

bool StripVersion(std::string_view& name) {
  // "_v" followed by one or more digits at the end.
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || i < 2 || name.substr(i - 2, 2) != "_v") return false;
  name = name.substr(0, i - 2);
  return true;
}

bool StripSuffix(std::string_view& name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix)
    return false;
  name.remove_suffix(suffix.size());
  return true;
}

}  // namespace

std::string_view NormalizeCudaApiName(std::string_view name) {
  while (StripVersion(name) || StripSuffix(name, "_ptsz") || StripSuffix(name, "_ptds")) {
  }
  return name;
}

bool IsKernelLaunchApi(std::string_view normalized_name) {
  for (std::string_view api : kLaunchApis) {
    if (normalized_name == api) return true;
  }
  return normalized_name.substr(0, kLaunchApiPrefix.size()) == kLaunchApiPrefix;
}

bool IsCopyApi(std::string_view normalized_name) {
  for (std::string_view prefix : {"cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset"}) {
    if (normalized_name.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace stepstat
