// Policy TOML → Policy, validated strictly: a typo in a key or a bad pattern is an error with
// the file, the line, the component and the pattern, never a rule that silently does nothing.
#include "stepstat/policy.h"

#include <re2/re2.h>
#include <toml++/toml.h>

#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>

#include "policy/regex_options.h"

namespace stepstat {
namespace {

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

/// Keeps a message on one line whatever bytes the pattern or name holds.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Quoted(std::string_view text) {
  std::string out = "'";  // appended, not `"'" + ...`: GCC 12 warns falsely (-Wrestrict) on that
  out += OneLine(text);
  out += '\'';
  return out;
}

std::string JoinKeys(std::initializer_list<std::string_view> keys) {
  std::string out;
  for (std::string_view key : keys) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

class PolicyParser {
 public:
  explicit PolicyParser(std::string_view file_name) : file_(file_name) {}

  Result<Policy> Parse(const toml::table& root);

 private:
  Status Error(const toml::source_region& where, std::string_view what) const {
    return ErrorAt(file_, where.begin.line, what);
  }
  Status CheckKeys(const toml::table& table, std::string_view context,
                   std::initializer_list<std::string_view> allowed) const;
  /// Reads a string key; `out` is left alone when the key is absent and not required.
  Status ReadString(const toml::table& table, std::string_view context, std::string_view key,
                    bool required, std::string* out) const;
  Status ReadPatterns(const toml::table& table, std::string_view context, std::string_view key,
                      bool required, bool case_sensitive, std::vector<std::string>* out) const;
  Status ParsePolicyTable(const toml::node& node, Policy* policy) const;
  Status ParseComponents(const toml::node& node, Policy* policy) const;
  Status ParseOther(const toml::node& node, Policy* policy) const;

  std::string_view file_;
};

Status PolicyParser::CheckKeys(const toml::table& table, std::string_view context,
                               std::initializer_list<std::string_view> allowed) const {
  // toml::table iterates in key order; report the unknown key that comes first in the file.
  const toml::key* first_unknown = nullptr;
  for (auto&& [key, value] : table) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key.str() == name;
    if (!known && (first_unknown == nullptr ||
                   key.source().begin.line < first_unknown->source().begin.line)) {
      first_unknown = &key;
    }
  }
  if (first_unknown == nullptr) return Status::Ok();
  return Error(first_unknown->source(), std::string(context) + ": unknown key " +
                                            Quoted(first_unknown->str()) +
                                            " (allowed: " + JoinKeys(allowed) + ")");
}

Status PolicyParser::ReadString(const toml::table& table, std::string_view context,
                                std::string_view key, bool required, std::string* out) const {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (!required) return Status::Ok();
    return Error(table.source(), std::string(context) + ": missing '" + std::string(key) + "'");
  }
  const toml::value<std::string>* text = node->as_string();
  if (text == nullptr) {
    return Error(node->source(), std::string(context) + ": '" + std::string(key) +
                                     "' must be a string, not " + std::string(TypeName(*node)));
  }
  *out = text->get();
  return Status::Ok();
}

Status PolicyParser::ReadPatterns(const toml::table& table, std::string_view context,
                                  std::string_view key, bool required, bool case_sensitive,
                                  std::vector<std::string>* out) const {
  const toml::node* node = table.get(key);
  const std::string quoted_key = Quoted(key);
  if (node == nullptr) {
    if (!required) return Status::Ok();
    return Error(table.source(), std::string(context) + ": missing " + quoted_key);
  }
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    return Error(node->source(), std::string(context) + ": " + quoted_key +
                                     " must be an array of strings, not " +
                                     std::string(TypeName(*node)));
  }
  if (array->empty() && required) {
    return Error(node->source(), std::string(context) + ": " + quoted_key + " must not be empty");
  }
  const std::string what = key == "exclude" ? "exclude pattern " : "pattern ";
  const re2::RE2::Options options = policy_internal::PatternOptions(case_sensitive);
  for (const toml::node& element : *array) {
    const toml::value<std::string>* text = element.as_string();
    if (text == nullptr) {
      return Error(element.source(), std::string(context) + ": " + quoted_key +
                                         " must hold strings, not " +
                                         std::string(TypeName(element)));
    }
    const std::string& pattern = text->get();
    if (pattern.empty()) {
      return Error(element.source(), std::string(context) + ": " + what +
                                         "'': an empty pattern matches every kernel");
    }
    re2::RE2 compiled(pattern, options);
    if (!compiled.ok()) {
      return Error(element.source(), std::string(context) + ": " + what + Quoted(pattern) + ": " +
                                         OneLine(compiled.error()));
    }
    out->push_back(pattern);
  }
  return Status::Ok();
}

Status PolicyParser::ParsePolicyTable(const toml::node& node, Policy* policy) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Error(node.source(),
                 "'policy' must be a table ([policy]), not " + std::string(TypeName(node)));
  }
  RETURN_IF_ERROR(CheckKeys(*table, "[policy]", {"name", "description", "case_sensitive"}));
  RETURN_IF_ERROR(ReadString(*table, "[policy]", "name", true, &policy->name));
  if (policy->name.empty()) {
    return Error(table->get("name")->source(), "[policy]: 'name' must not be empty");
  }
  // Descriptions are for readers of the output; a policy without them still classifies.
  RETURN_IF_ERROR(ReadString(*table, "[policy]", "description", false, &policy->description));
  if (const toml::node* flag = table->get("case_sensitive")) {
    const toml::value<bool>* value = flag->as_boolean();
    if (value == nullptr) {
      return Error(flag->source(), "[policy]: 'case_sensitive' must be a boolean, not " +
                                       std::string(TypeName(*flag)));
    }
    policy->case_sensitive = value->get();
  }
  return Status::Ok();
}

Status PolicyParser::ParseComponents(const toml::node& node, Policy* policy) const {
  const toml::array* array = node.as_array();
  if (array != nullptr && array->empty()) {
    return Error(node.source(), "no [[component]] tables: a policy needs at least one component");
  }
  if (array == nullptr || !array->is_array_of_tables()) {
    return Error(node.source(),
                 "'component' must be an array of tables: write [[component]], not [component]");
  }
  std::map<std::string, uint32_t, std::less<>> first_line;
  int number = 0;
  for (const toml::node& element : *array) {
    ++number;
    const toml::table& table = *element.as_table();
    const std::string numbered = "component #" + std::to_string(number);
    ComponentRule rule;
    const toml::node* name_node = table.get("name");
    const bool has_name =
        name_node != nullptr && name_node->is_string() && !name_node->as_string()->get().empty();
    const std::string context =
        has_name ? "component " + Quoted(name_node->as_string()->get()) : numbered;
    // Unknown keys first: a misspelt `nmae` should be reported as such, not as a missing name.
    RETURN_IF_ERROR(CheckKeys(table, context, {"name", "description", "patterns", "exclude"}));
    RETURN_IF_ERROR(ReadString(table, numbered, "name", true, &rule.name));
    if (rule.name.empty()) {
      return Error(name_node->source(), numbered + ": 'name' must not be empty");
    }
    const toml::source_region& name_place = name_node->source();
    if (rule.name == "other") {
      return Error(name_place, context +
                                   ": the name 'other' is reserved for unmatched kernels "
                                   "(describe it in [other])");
    }
    auto [it, inserted] = first_line.emplace(rule.name, name_place.begin.line);
    if (!inserted) {
      return Error(name_place, context + ": duplicate name (first defined at line " +
                                   std::to_string(it->second) + ")");
    }
    RETURN_IF_ERROR(ReadString(table, context, "description", false, &rule.description));
    RETURN_IF_ERROR(
        ReadPatterns(table, context, "patterns", true, policy->case_sensitive, &rule.patterns));
    RETURN_IF_ERROR(
        ReadPatterns(table, context, "exclude", false, policy->case_sensitive, &rule.exclude));
    policy->components.push_back(std::move(rule));
  }
  return Status::Ok();
}

Status PolicyParser::ParseOther(const toml::node& node, Policy* policy) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Error(node.source(),
                 "'other' must be a table ([other]), not " + std::string(TypeName(node)));
  }
  RETURN_IF_ERROR(CheckKeys(*table, "[other]", {"description"}));
  return ReadString(*table, "[other]", "description", false, &policy->other_description);
}

Result<Policy> PolicyParser::Parse(const toml::table& root) {
  RETURN_IF_ERROR(CheckKeys(root, "policy file", {"policy", "component", "other"}));
  Policy policy;
  const toml::node* policy_node = root.get("policy");
  if (policy_node == nullptr) return ErrorAt(file_, 0, "missing the [policy] table");
  // [policy] first: case_sensitive decides how the patterns are compiled.
  RETURN_IF_ERROR(ParsePolicyTable(*policy_node, &policy));
  const toml::node* components = root.get("component");
  if (components == nullptr) {
    return ErrorAt(file_, 0, "no [[component]] tables: a policy needs at least one component");
  }
  RETURN_IF_ERROR(ParseComponents(*components, &policy));
  if (const toml::node* other = root.get("other")) RETURN_IF_ERROR(ParseOther(*other, &policy));
  return policy;
}

}  // namespace

Result<Policy> ParsePolicy(std::string_view toml_text, std::string_view file_name) {
  try {
    toml::table root = toml::parse(toml_text, file_name);
    return PolicyParser(file_name).Parse(root);
  } catch (const toml::parse_error& error) {
    return ErrorAt(file_name, error.source().begin.line, OneLine(error.description()));
  } catch (const std::exception& error) {
    return ErrorAt(file_name, 0, OneLine(error.what()));
  }
}

Result<Policy> LoadPolicyFile(const std::filesystem::path& path) {
  const std::string file_name = path.string();
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return ErrorAt(file_name, 0, "is a directory, not a policy file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrorAt(file_name, 0, "cannot open the policy file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return ErrorAt(file_name, 0, "cannot read the policy file");
  return ParsePolicy(text.str(), file_name);
}

}  // namespace stepstat
