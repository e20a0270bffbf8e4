#include "readers/kineto/kineto_devices.h"

#include <simdjson.h>

#include <cstdint>

namespace stepstat {

namespace {

// The text of the JSON array that starts at `open` ('['), or empty when it is cut off.
std::string_view ArrayAt(std::string_view json, size_t open) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return json.substr(open, i + 1 - open);
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> KinetoDevicesInPrefix(std::string_view json) {
  std::vector<std::string> devices;
  size_t at = json.find("\"deviceProperties\"");
  if (at == std::string_view::npos) return devices;
  size_t open = json.find_first_not_of(" \t\r\n:", at + 18);
  if (open == std::string_view::npos || json[open] != '[') return devices;
  std::string_view array = ArrayAt(json, open);
  if (array.empty()) return devices;
  simdjson::padded_string text(array);
  simdjson::dom::parser parser;
  simdjson::dom::array list;
  if (parser.parse(text).get_array().get(list)) return devices;
  for (simdjson::dom::element device : list) {
    int64_t id = 0;
    std::string_view name;
    if (device["id"].get_int64().get(id) || device["name"].get_string().get(name)) {
      return {};  // not the shape the reader reads: let it speak
    }
    devices.push_back(std::string(name) + " (" + std::to_string(id) + ")");
  }
  return devices;
}

}  // namespace stepstat
