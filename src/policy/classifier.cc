// Classifier: all include patterns in one RE2::Set, all excludes in another, so a name is
// scanned once (linear time) whatever the number of components. Should the Set's DFA run
// out of memory on some input, Classify falls back to the per-pattern RE2 objects (which
// fall back to the NFA themselves), so every name always gets an answer.
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "policy/regex_options.h"
#include "stepstat/policy.h"

namespace stepstat {

struct Classifier::Impl {
  /// A Set plus, for each of its patterns, the component it belongs to.
  struct PatternSet {
    std::unique_ptr<re2::RE2::Set> set;  // null when it has no patterns
    std::vector<int> owner;
  };
  PatternSet includes;
  PatternSet excludes;
  // The slow path, per component, in policy order.
  std::vector<std::vector<std::unique_ptr<re2::RE2>>> component_includes;
  std::vector<std::vector<std::unique_ptr<re2::RE2>>> component_excludes;
  int other = 0;
  bool use_sets = false;  // false when a Set could not compile

  /// Components with a matching pattern in `patterns`, ascending; false when the DFA failed.
  static bool MatchingComponents(const PatternSet& patterns, std::string_view name,
                                 std::vector<int>* components);
  int ClassifyOnePatternAtATime(std::string_view name) const;
};

namespace {

bool AnyMatches(const std::vector<std::unique_ptr<re2::RE2>>& patterns, std::string_view name) {
  for (const auto& pattern : patterns) {
    if (re2::RE2::PartialMatch(name, *pattern)) return true;
  }
  return false;
}

Status AddPatterns(const std::vector<std::string>& patterns, int component,
                   const re2::RE2::Options& options, std::string_view component_name,
                   std::string_view what, re2::RE2::Set* set, std::vector<int>* owner,
                   std::vector<std::unique_ptr<re2::RE2>>* compiled) {
  for (const std::string& pattern : patterns) {
    std::string error;
    if (set->Add(pattern, &error) < 0) {
      std::string message = "component '";
      message.append(component_name).append("': ").append(what);
      message.append(" '").append(pattern).append("': ").append(error);
      return Status::Error(std::move(message));
    }
    owner->push_back(component);
    compiled->push_back(std::make_unique<re2::RE2>(pattern, options));
  }
  return Status::Ok();
}

}  // namespace

bool Classifier::Impl::MatchingComponents(const PatternSet& patterns, std::string_view name,
                                          std::vector<int>* components) {
  components->clear();
  if (patterns.set == nullptr) return true;
  std::vector<int> hits;
  re2::RE2::Set::ErrorInfo info{re2::RE2::Set::kNoError};
  if (!patterns.set->Match(name, &hits, &info)) return info.kind == re2::RE2::Set::kNoError;
  for (int hit : hits) components->push_back(patterns.owner[hit]);
  std::sort(components->begin(), components->end());
  components->erase(std::unique(components->begin(), components->end()), components->end());
  return true;
}

int Classifier::Impl::ClassifyOnePatternAtATime(std::string_view name) const {
  for (int i = 0; i < other; ++i) {
    if (AnyMatches(component_includes[i], name) && !AnyMatches(component_excludes[i], name)) {
      return i;
    }
  }
  return other;
}

Result<Classifier> Classifier::Create(const Policy& policy) {
  return Create(policy, ClassifierOptions());
}

Result<Classifier> Classifier::Create(const Policy& policy, const ClassifierOptions& options) {
  if (policy.components.empty()) return Status::Error("the policy has no components");
  auto impl = std::make_unique<Impl>();
  const re2::RE2::Options re2_options =
      policy_internal::PatternOptions(policy.case_sensitive, options.regex_max_mem_bytes);
  impl->other = static_cast<int>(policy.components.size());
  impl->component_includes.resize(policy.components.size());
  impl->component_excludes.resize(policy.components.size());
  re2::RE2::Set includes(re2_options, re2::RE2::UNANCHORED);
  re2::RE2::Set excludes(re2_options, re2::RE2::UNANCHORED);
  for (int i = 0; i < impl->other; ++i) {
    const ComponentRule& rule = policy.components[i];
    if (rule.name == "other") return Status::Error("a component may not be named 'other'");
    RETURN_IF_ERROR(AddPatterns(rule.patterns, i, re2_options, rule.name, "pattern", &includes,
                                &impl->includes.owner, &impl->component_includes[i]));
    RETURN_IF_ERROR(AddPatterns(rule.exclude, i, re2_options, rule.name, "exclude pattern",
                                &excludes, &impl->excludes.owner, &impl->component_excludes[i]));
    for (const auto* compiled : {&impl->component_includes[i], &impl->component_excludes[i]}) {
      for (const auto& pattern : *compiled) {
        if (!pattern->ok()) {
          return Status::Error("component '" + rule.name + "': pattern '" + pattern->pattern() +
                               "': " + pattern->error());
        }
      }
    }
  }
  // A Set that cannot compile (too big for max_mem) leaves Classify on the slow path.
  if (!impl->includes.owner.empty() && includes.Compile()) {
    impl->includes.set = std::make_unique<re2::RE2::Set>(std::move(includes));
  }
  if (!impl->excludes.owner.empty() && excludes.Compile()) {
    impl->excludes.set = std::make_unique<re2::RE2::Set>(std::move(excludes));
  }
  const bool sets_ready = impl->includes.set != nullptr &&
                          (impl->excludes.owner.empty() || impl->excludes.set != nullptr);
  impl->use_sets = sets_ready;
  return Classifier(std::move(impl));
}

Classifier::Classifier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;
Classifier::~Classifier() = default;

int Classifier::other_index() const { return impl_->other; }

int Classifier::Classify(std::string_view kernel_name) const {
  if (!impl_->use_sets) return impl_->ClassifyOnePatternAtATime(kernel_name);
  std::vector<int> candidates;
  if (!Impl::MatchingComponents(impl_->includes, kernel_name, &candidates)) {
    return impl_->ClassifyOnePatternAtATime(kernel_name);
  }
  if (candidates.empty()) return impl_->other;
  if (impl_->component_excludes[candidates.front()].empty()) return candidates.front();
  std::vector<int> excluded;
  if (!Impl::MatchingComponents(impl_->excludes, kernel_name, &excluded)) {
    return impl_->ClassifyOnePatternAtATime(kernel_name);
  }
  for (int component : candidates) {
    if (!std::binary_search(excluded.begin(), excluded.end(), component)) return component;
  }
  return impl_->other;
}

}  // namespace stepstat
