// The policy TOML files of src/policy/presets/, embedded at build time by embed_presets.cmake.
#pragma once

#include <cstddef>

namespace stepstat::policy_internal {

struct EmbeddedPreset {
  const char* name;            ///< the file name without .toml
  const unsigned char* bytes;  ///< the file's bytes (NUL-terminated, not counted in size)
  size_t size;
};

extern const EmbeddedPreset kEmbeddedPresets[];
extern const size_t kEmbeddedPresetCount;

}  // namespace stepstat::policy_internal
