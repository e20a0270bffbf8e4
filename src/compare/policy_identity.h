// The identity of a policy as far as its outputs show it, shared by the in-memory and the
// JSON side so that the two agree.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepstat {

/// FNV-1a 64 over "name\0description\0" per component, `other` included, as 16 hex digits.
std::string ComponentsIdentity(const std::vector<std::pair<std::string, std::string>>& components);

}  // namespace stepstat
