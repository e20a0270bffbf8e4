#include "report/json_writer.h"

#include <cassert>

#include "report/python_float.h"

namespace stepstat {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendUnicodeEscape(uint32_t unit, std::string* out) {
  const char escape[6] = {
      '\\',           'u', kHex[(unit >> 12) & 15], kHex[(unit >> 8) & 15], kHex[(unit >> 4) & 15],
      kHex[unit & 15]};
  out->append(escape, 6);
}

bool InRange(unsigned char byte, unsigned char low, unsigned char high) {
  return byte >= low && byte <= high;
}

/// Decodes one code point at the front of `text` (non-empty). Invalid input yields U+FFFD
/// and consumes the maximal subpart (Unicode 3.9, "best practice"), as Python does.
uint32_t DecodeUtf8(std::string_view text, size_t* length) {
  const auto lead = static_cast<unsigned char>(text[0]);
  *length = 1;
  if (lead < 0x80) return lead;
  int continuation;
  uint32_t code_point;
  unsigned char second_low = 0x80, second_high = 0xBF;
  if (InRange(lead, 0xC2, 0xDF)) {
    continuation = 1;
    code_point = lead & 0x1F;
  } else if (InRange(lead, 0xE0, 0xEF)) {
    continuation = 2;
    code_point = lead & 0x0F;
    if (lead == 0xE0) second_low = 0xA0;
    if (lead == 0xED) second_high = 0x9F;  // no surrogates
  } else if (InRange(lead, 0xF0, 0xF4)) {
    continuation = 3;
    code_point = lead & 0x07;
    if (lead == 0xF0) second_low = 0x90;
    if (lead == 0xF4) second_high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0xFFFD;
  }
  for (int i = 1; i <= continuation; ++i) {
    if (static_cast<size_t>(i) >= text.size()) return 0xFFFD;
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool ok = i == 1 ? InRange(byte, second_low, second_high) : InRange(byte, 0x80, 0xBF);
    if (!ok) return 0xFFFD;
    code_point = (code_point << 6) | (byte & 0x3F);
    *length = i + 1;
  }
  return code_point;
}

bool IsPlainAscii(char c) { return c >= ' ' && c <= '~' && c != '"' && c != '\\'; }

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  *out += '"';
  size_t i = 0;
  while (i < text.size()) {
    size_t run = i;
    while (run < text.size() && IsPlainAscii(text[run])) ++run;
    out->append(text.data() + i, run - i);
    i = run;
    if (i == text.size()) break;
    switch (text[i]) {
      case '"':
        *out += "\\\"";
        ++i;
        continue;
      case '\\':
        *out += "\\\\";
        ++i;
        continue;
      case '\n':
        *out += "\\n";
        ++i;
        continue;
      case '\r':
        *out += "\\r";
        ++i;
        continue;
      case '\t':
        *out += "\\t";
        ++i;
        continue;
      case '\b':
        *out += "\\b";
        ++i;
        continue;
      case '\f':
        *out += "\\f";
        ++i;
        continue;
      default: break;
    }
    size_t length;
    const uint32_t code_point = DecodeUtf8(text.substr(i), &length);
    i += length;
    if (code_point > 0xFFFF) {
      const uint32_t offset = code_point - 0x10000;
      AppendUnicodeEscape(0xD800 + (offset >> 10), out);
      AppendUnicodeEscape(0xDC00 + (offset & 0x3FF), out);
    } else {
      AppendUnicodeEscape(code_point, out);
    }
  }
  *out += '"';
}

void JsonWriter::NewLine(size_t depth) {
  if (!indent_) return;
  out_ += '\n';
  out_.append(depth * static_cast<size_t>(*indent_), ' ');
}

void JsonWriter::BeforeItem(bool is_key) {
  constexpr size_t kDrainAt = size_t{1} << 20;
  if (drain_ && out_.size() >= kDrainAt) {
    drain_(out_);
    out_.clear();
  }
  if (levels_.empty()) {
    assert(!is_key && out_.empty() && "one top-level value per document");
    return;
  }
  Level& level = levels_.back();
  if (!is_key && level.is_object) {
    assert(after_key_ && "a value in an object needs a Key first");
    after_key_ = false;
    return;
  }
  assert(is_key == level.is_object && "Key belongs in objects only");
  assert(!after_key_);
  if (level.items > 0) out_ += indent_ ? "," : ", ";
  ++level.items;
  NewLine(levels_.size());
}

void JsonWriter::Open(bool is_object, char bracket) {
  BeforeItem(false);
  out_ += bracket;
  levels_.push_back(Level{is_object});
}

void JsonWriter::Close(bool is_object, char bracket) {
  assert(!levels_.empty() && levels_.back().is_object == is_object && !after_key_);
  (void)is_object;
  const bool empty = levels_.back().items == 0;
  levels_.pop_back();
  if (!empty) NewLine(levels_.size());  // Python prints an empty container as {} or []
  out_ += bracket;
}

JsonWriter& JsonWriter::BeginObject() {
  Open(true, '{');
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  Close(true, '}');
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  Open(false, '[');
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  Close(false, ']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeItem(true);
  AppendJsonString(key, &out_);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeItem(false);
  AppendJsonString(value, &out_);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeItem(false);
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::UInt(uint64_t value) {
  BeforeItem(false);
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  BeforeItem(false);
  AppendPythonFloat(value, &out_);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeItem(false);
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeItem(false);
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Field(std::string_view key, const std::optional<std::string>& value) {
  Key(key);
  return value ? String(*value) : Null();
}

}  // namespace stepstat
