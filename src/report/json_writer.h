// A streaming JSON writer that prints exactly what Python's json.dumps(value, indent=N)
// prints (ensure_ascii on, default separators), so any writer can produce Python-identical
// output by emitting keys and values in order.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stepstat {

/// Appends `text` as a JSON string literal the way json.dumps prints it: `\"`, `\\`, `\n`,
/// `\r`, `\t`, `\b`, `\f`; other bytes below 0x20, DEL and all non-ASCII as lower-case
/// `\u00xx` / `\uxxxx`, with surrogate pairs above U+FFFF. `text` is read as UTF-8; each
/// maximal invalid subsequence becomes U+FFFD (Python's bytes.decode("utf-8", "replace")).
void AppendJsonString(std::string_view text, std::string* out);

/// Builds one JSON document. Call Key before each value inside an object; values at top
/// level or inside arrays need no key. Misuse (a key in an array, unbalanced End*) asserts.
class JsonWriter {
 public:
  /// `indent` spaces per level, as json.dumps(indent=N); nullopt is json.dumps' one-line
  /// default (`{"a": 1, "b": [1, 2]}`).
  explicit JsonWriter(std::optional<int> indent = 2) : indent_(indent) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& UInt(uint64_t value);
  JsonWriter& Double(double value);  ///< Python's float spelling (python_float.h)
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  /// Key then value, for the common case.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const std::string& value) {
    return Key(key).String(value);
  }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  template <typename T>
  requires(std::integral<T> && !std::same_as<T, bool>) JsonWriter& Field(std::string_view key,
                                                                         T value) {
    Key(key);
    if constexpr (std::is_signed_v<T>) return Int(value);
    return UInt(value);
  }
  JsonWriter& Field(std::string_view key, double value) { return Key(key).Double(value); }
  JsonWriter& Field(std::string_view key, bool value) { return Key(key).Bool(value); }
  JsonWriter& Field(std::string_view key, const std::optional<std::string>& value);

  /// Hands the text written so far to `drain` whenever it passes about a megabyte, so a
  /// large document streams out in pieces instead of growing in memory; text() and Take()
  /// then hold only what came after the last piece.
  void DrainTo(std::function<void(std::string_view)> drain) { drain_ = std::move(drain); }

  /// The document so far (complete once every Begin has its End); no final newline.
  const std::string& text() const { return out_; }
  std::string Take() && { return std::move(out_); }

 private:
  struct Level {
    bool is_object;
    int64_t items = 0;
  };
  /// Writes what goes before a value or key: separator, newline and indentation.
  void BeforeItem(bool is_key);
  void Open(bool is_object, char bracket);
  void Close(bool is_object, char bracket);
  void NewLine(size_t depth);

  std::optional<int> indent_;
  std::vector<Level> levels_;
  bool after_key_ = false;
  std::string out_;
  std::function<void(std::string_view)> drain_;
};

}  // namespace stepstat
