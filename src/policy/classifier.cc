// Classifier: all include patterns in one RE2::Set, all excludes in another, so a name is
// scanned once (linear time) whatever the number of components. Should the Set's DFA run
// out of memory on some input, Classify falls back to the per-pattern RE2 objects (which
// fall back to the NFA themselves), so every name always gets an answer. Those are compiled
// on first use when the Sets compiled: a run that never needs them (nearly every run) does
// not pay for compiling each pattern twice.
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <memory>
#include <mutex>
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
  // The slow path, per component, in policy order: compiled by Create when a Set could not
  // compile, else on first use (SlowPath), from the policy's patterns kept here.
  struct SlowPath {
    std::vector<std::vector<std::unique_ptr<re2::RE2>>> includes;
    std::vector<std::vector<std::unique_ptr<re2::RE2>>> excludes;
  };
  std::vector<ComponentRule> rules;
  re2::RE2::Options options;
  mutable std::once_flag slow_path_compiled;
  mutable SlowPath slow_path;
  int other = 0;
  bool use_sets = false;  // false when a Set could not compile

  /// Components with a matching pattern in `patterns`, ascending; false when the DFA failed.
  static bool MatchingComponents(const PatternSet& patterns, std::string_view name,
                                 std::vector<int>* components);
  const SlowPath& CompiledSlowPath() const;
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
                   std::string_view component_name, std::string_view what, re2::RE2::Set* set,
                   std::vector<int>* owner) {
  for (const std::string& pattern : patterns) {
    std::string error;
    if (set->Add(pattern, &error) < 0) {
      std::string message = "component '";
      message.append(component_name).append("': ").append(what);
      message.append(" '").append(pattern).append("': ").append(error);
      return Status::Error(std::move(message));
    }
    owner->push_back(component);
  }
  return Status::Ok();
}

std::vector<std::unique_ptr<re2::RE2>> Compiled(const std::vector<std::string>& patterns,
                                                const re2::RE2::Options& options) {
  std::vector<std::unique_ptr<re2::RE2>> compiled;
  compiled.reserve(patterns.size());
  for (const std::string& pattern : patterns) {
    compiled.push_back(std::make_unique<re2::RE2>(pattern, options));
  }
  return compiled;
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

const Classifier::Impl::SlowPath& Classifier::Impl::CompiledSlowPath() const {
  std::call_once(slow_path_compiled, [this] {
    for (const ComponentRule& rule : rules) {
      slow_path.includes.push_back(Compiled(rule.patterns, options));
      slow_path.excludes.push_back(Compiled(rule.exclude, options));
    }
  });
  return slow_path;
}

int Classifier::Impl::ClassifyOnePatternAtATime(std::string_view name) const {
  const SlowPath& slow = CompiledSlowPath();
  for (int i = 0; i < other; ++i) {
    if (AnyMatches(slow.includes[i], name) && !AnyMatches(slow.excludes[i], name)) return i;
  }
  return other;
}

Result<Classifier> Classifier::Create(const Policy& policy) {
  return Create(policy, ClassifierOptions());
}

Result<Classifier> Classifier::Create(const Policy& policy, const ClassifierOptions& options) {
  if (policy.components.empty()) return Status::Error("the policy has no components");
  auto impl = std::make_unique<Impl>();
  impl->options =
      policy_internal::PatternOptions(policy.case_sensitive, options.regex_max_mem_bytes);
  impl->other = static_cast<int>(policy.components.size());
  impl->rules = policy.components;
  re2::RE2::Set includes(impl->options, re2::RE2::UNANCHORED);
  re2::RE2::Set excludes(impl->options, re2::RE2::UNANCHORED);
  for (int i = 0; i < impl->other; ++i) {
    const ComponentRule& rule = policy.components[i];
    if (rule.name == "other") return Status::Error("a component may not be named 'other'");
    RETURN_IF_ERROR(
        AddPatterns(rule.patterns, i, rule.name, "pattern", &includes, &impl->includes.owner));
    RETURN_IF_ERROR(AddPatterns(rule.exclude, i, rule.name, "exclude pattern", &excludes,
                                &impl->excludes.owner));
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
  if (!sets_ready) {
    // Every name takes the slow path: compile it now, and refuse a pattern RE2 refuses.
    const Impl::SlowPath& slow = impl->CompiledSlowPath();
    for (int i = 0; i < impl->other; ++i) {
      for (const auto* compiled : {&slow.includes[i], &slow.excludes[i]}) {
        for (const auto& pattern : *compiled) {
          if (!pattern->ok()) {
            return Status::Error("component '" + policy.components[i].name + "': pattern '" +
                                 pattern->pattern() + "': " + pattern->error());
          }
        }
      }
    }
  }
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
  if (impl_->rules[static_cast<size_t>(candidates.front())].exclude.empty()) {
    return candidates.front();
  }
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
