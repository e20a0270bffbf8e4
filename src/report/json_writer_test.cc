#include "report/json_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace stepstat {
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(text, &out);
  return out;
}

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

TEST(AppendJsonString, EscapesAsPythonEnsureAscii) {
  EXPECT_EQ(Json("plain text ~"), "\"plain text ~\"");
  EXPECT_EQ(Json("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Json("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(Json(std::string("\0\x1f\x7f", 3)), "\"\\u0000\\u001f\\u007f\"");
  EXPECT_EQ(Json("caf\xc3\xa9"), "\"caf\\u00e9\"");
  EXPECT_EQ(Json("\xf0\x9f\x98\x80"), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(Json("a\xff"
                 "b"),
            "\"a\\ufffdb\"");
  EXPECT_EQ(Json("\xe2\x82"), "\"\\ufffd\"");  // a truncated sequence is one replacement
}

// python_strings.tsv was written by /usr/bin/python3 (make_python_strings.py beside it).
TEST(AppendJsonString, MatchesPythonOnValidAndInvalidUtf8) {
  const std::string path = STEPSTAT_SOURCE_DIR "/tests/fixtures/report/python_strings.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    EXPECT_EQ(Json(FromHex(line.substr(0, tab))), line.substr(tab + 1)) << "bytes " << line;
    ++checked;
  }
  EXPECT_GT(checked, 700);
}

void WriteNested(JsonWriter& json) {
  json.BeginObject();
  json.Key("a").BeginObject().EndObject();
  json.Key("b").BeginArray().EndArray();
  json.Key("c").BeginArray().Int(1);
  json.BeginObject().Key("x").Null().Key("y").BeginArray().BeginArray().EndArray().EndArray();
  json.EndObject().String("s").EndArray();
  json.Key("d").BeginObject().Key("e").BeginObject().Field("f", true).Field("g", false);
  json.EndObject().EndObject();
  json.Field("h", -0.0).Field("\xc3\xa9\n", 1.5e16);
  json.EndObject();
}

// Expected texts are what Python 3 prints for the same dict with json.dumps.
TEST(JsonWriter, IndentTwoAsPython) {
  JsonWriter json;
  WriteNested(json);
  EXPECT_EQ(
      json.text(),
      "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": [\n    1,\n    {\n      \"x\": null,\n      "
      "\"y\": [\n        []\n      ]\n    },\n    \"s\"\n  ],\n  \"d\": {\n    \"e\": {\n     "
      " \"f\": true,\n      \"g\": false\n    }\n  },\n  \"h\": -0.0,\n  \"\\u00e9\\n\": "
      "1.5e+16\n}");
}

TEST(JsonWriter, CompactAsPythonDefault) {
  JsonWriter json(std::nullopt);
  WriteNested(json);
  EXPECT_EQ(json.text(),
            "{\"a\": {}, \"b\": [], \"c\": [1, {\"x\": null, \"y\": [[]]}, \"s\"], \"d\": {\"e\": "
            "{\"f\": true, \"g\": false}}, \"h\": -0.0, \"\\u00e9\\n\": 1.5e+16}");
}

TEST(JsonWriter, IndentZeroAsPython) {
  JsonWriter json(0);
  WriteNested(json);
  EXPECT_EQ(
      json.text(),
      "{\n\"a\": {},\n\"b\": [],\n\"c\": [\n1,\n{\n\"x\": null,\n\"y\": [\n[]\n]\n},\n\"s\"\n],"
      "\n\"d\": {\n\"e\": {\n\"f\": true,\n\"g\": false\n}\n},\n\"h\": -0.0,\n\"\\u00e9\\n\": "
      "1.5e+16\n}");
}

TEST(JsonWriter, TopLevelContainersAndScalars) {
  EXPECT_EQ(JsonWriter().BeginArray().EndArray().text(), "[]");
  EXPECT_EQ(JsonWriter().BeginObject().EndObject().text(), "{}");
  EXPECT_EQ(
      JsonWriter().BeginArray().BeginArray().EndArray().BeginObject().EndObject().EndArray().text(),
      "[\n  [],\n  {}\n]");
  EXPECT_EQ(JsonWriter().Int(-9223372036854775807 - 1).text(), "-9223372036854775808");
  EXPECT_EQ(JsonWriter().Double(2.0).text(), "2.0");
  EXPECT_EQ(JsonWriter().UInt(18446744073709551615u).text(), "18446744073709551615");
}

TEST(JsonWriter, FieldPicksTheJsonTypeFromTheCppType) {
  const std::optional<std::string> absent;
  JsonWriter json(std::nullopt);
  json.BeginObject()
      .Field("i", -3)
      .Field("u", size_t{7})
      .Field("big", uint64_t{18446744073709551615u})
      .Field("d", 3.0)
      .Field("b", true)
      .Field("s", std::string("x"))
      .Field("c", "y")
      .Field("n", absent)
      .Field("o", std::optional<std::string>("z"))
      .EndObject();
  EXPECT_EQ(json.text(), R"({"i": -3, "u": 7, "big": 18446744073709551615, "d": 3.0, "b": true, )"
                         R"("s": "x", "c": "y", "n": null, "o": "z"})");
}

}  // namespace
}  // namespace stepstat

namespace stepstat {
namespace {

// A document of a few megabytes, written whole and drained in pieces: the same bytes.
TEST(JsonWriter, DrainedPiecesMakeTheSameDocument) {
  auto write = [](JsonWriter& json) {
    json.BeginObject().Key("rows").BeginArray();
    for (int i = 0; i < 60'000; ++i) {
      json.BeginObject().Field("index", i).Field("name", "step \"" + std::to_string(i) + "\"");
      json.Field("share", i / 7.0).EndObject();
    }
    json.EndArray().Field("done", true).EndObject();
  };
  JsonWriter whole;
  write(whole);
  JsonWriter drained;
  std::string pieces;
  int count = 0;
  drained.DrainTo([&](std::string_view piece) {
    pieces += piece;
    ++count;
  });
  write(drained);
  pieces += std::move(drained).Take();
  EXPECT_GT(whole.text().size(), size_t{3} << 20);
  EXPECT_GE(count, 3);
  EXPECT_EQ(pieces, whole.text());
}

}  // namespace
}  // namespace stepstat
