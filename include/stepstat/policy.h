// Classification policies: ordered component rules (TOML) and the classifier that applies
// them. A kernel goes to the first component with a pattern that matches its name (an RE2
// search) and no exclude pattern that does; unmatched kernels go to `other`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/status.h"

namespace stepstat {

struct ComponentRule {
  std::string name;
  std::string description;
  std::vector<std::string> patterns;
  std::vector<std::string> exclude;
};

struct Policy {
  std::string name;
  std::string description;
  bool case_sensitive = false;
  std::vector<ComponentRule> components;  ///< in policy order; never contains "other"
  std::string other_description = "all unmatched kernels";
};

/// Parses policy TOML. `file_name` names the file in messages, which also name the
/// component and pattern at fault. Patterns are compiled here, so a returned Policy is valid.
Result<Policy> ParsePolicy(std::string_view toml_text, std::string_view file_name);
Result<Policy> LoadPolicyFile(const std::filesystem::path& path);

/// Policies embedded in the binary; "dit-nvfp4" is the default.
inline constexpr std::string_view kDefaultPolicyName = "dit-nvfp4";
std::vector<std::string_view> BuiltinPolicyNames();
Result<Policy> BuiltinPolicy(std::string_view name);

struct ClassifierOptions {
  /// RE2 memory budget per pattern set; past it Classify falls back to one pattern at a time.
  int64_t regex_max_mem_bytes = int64_t{512} << 20;
};

/// Applies a policy. Component index i < components.size() is policy.components[i];
/// index components.size() is `other`. Thread-compatible (const methods are thread-safe).
/// Names are matched byte-wise (RE2 Latin-1): any bytes classify, invalid UTF-8 included; a
/// non-ASCII literal in a pattern matches its UTF-8 bytes, and `.` also matches a newline.
/// Classify does no caching: callers classify each distinct name once.
class Classifier {
 public:
  static Result<Classifier> Create(const Policy& policy);
  static Result<Classifier> Create(const Policy& policy, const ClassifierOptions& options);
  Classifier(Classifier&&) noexcept;
  Classifier& operator=(Classifier&&) noexcept;
  ~Classifier();

  int Classify(std::string_view kernel_name) const;
  int other_index() const;

 private:
  struct Impl;
  explicit Classifier(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace stepstat
