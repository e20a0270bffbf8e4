// Built-in policies: the embedded preset files, parsed on request.
#include "policy/presets.h"

#include <string>

#include "stepstat/policy.h"

namespace stepstat {
namespace {

std::string_view PresetText(const policy_internal::EmbeddedPreset& preset) {
  return {reinterpret_cast<const char*>(preset.bytes), preset.size};
}

}  // namespace

std::vector<std::string_view> BuiltinPolicyNames() {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < policy_internal::kEmbeddedPresetCount; ++i) {
    names.emplace_back(policy_internal::kEmbeddedPresets[i].name);
  }
  return names;
}

Result<Policy> BuiltinPolicy(std::string_view name) {
  for (size_t i = 0; i < policy_internal::kEmbeddedPresetCount; ++i) {
    const policy_internal::EmbeddedPreset& preset = policy_internal::kEmbeddedPresets[i];
    if (name == preset.name) {
      return ParsePolicy(PresetText(preset), "built-in policy " + std::string(name));
    }
  }
  std::string known;
  for (std::string_view builtin : BuiltinPolicyNames()) {
    known += known.empty() ? "" : ", ";
    known += builtin;
  }
  return Status::Error("unknown built-in policy '" + std::string(name) + "' (built-in: " + known +
                       ")");
}

}  // namespace stepstat
