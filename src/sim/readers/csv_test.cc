#include "sim/readers/csv.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Row {
  int line;
  std::vector<std::string> fields;
  bool operator==(const Row&) const = default;
};

void PrintTo(const Row& row, std::ostream* os) {
  *os << "line " << row.line << ":";
  for (const std::string& f : row.fields) *os << " [" << f << "]";
}

// All records of `text`, or the error message as the only field of a row with line -1.
std::vector<Row> ReadAll(std::string_view text, char* delimiter = nullptr) {
  CsvReader reader(text, "in.csv");
  if (delimiter) *delimiter = reader.delimiter();
  std::vector<Row> rows;
  CsvRecord record;
  for (;;) {
    Result<bool> more = reader.Next(&record);
    if (!more.ok()) {
      rows.push_back({-1, {more.status().message()}});
      return rows;
    }
    if (!*more) return rows;
    rows.push_back({record.line, {record.fields.begin(), record.fields.end()}});
  }
}

TEST(CsvTest, SplitsCommaSeparatedLines) {
  char delimiter = 0;
  EXPECT_THAT(ReadAll("a,b,c\n1,2,3\n", &delimiter),
              ElementsAre(Row{1, {"a", "b", "c"}}, Row{2, {"1", "2", "3"}}));
  EXPECT_EQ(delimiter, ',');
}

TEST(CsvTest, EmptyInputHasNoRecords) {
  EXPECT_TRUE(ReadAll("").empty());
  EXPECT_TRUE(ReadAll("\n \r\n\t\n").empty());
  EXPECT_TRUE(ReadAll("\xEF\xBB\xBF").empty());
}

TEST(CsvTest, LastLineWithoutNewline) {
  EXPECT_THAT(ReadAll("a,b\n1,2"), ElementsAre(Row{1, {"a", "b"}}, Row{2, {"1", "2"}}));
}

TEST(CsvTest, SkipsBlankLinesButCountsThem) {
  EXPECT_THAT(ReadAll("\na,b\n\n   \n1,2\r\n\r\n3,4\n\n"),
              ElementsAre(Row{2, {"a", "b"}}, Row{5, {"1", "2"}}, Row{7, {"3", "4"}}));
}

TEST(CsvTest, TrimsSpacesAroundUnquotedFieldsOnly) {
  EXPECT_THAT(ReadAll("  a ,\tb\t, c c \n\" x \" , y\n"),
              ElementsAre(Row{1, {"a", "b", "c c"}}, Row{2, {" x ", "y"}}));
}

TEST(CsvTest, KeepsEmptyFields) {
  EXPECT_THAT(ReadAll("a,,c,\n,,,\n"),
              ElementsAre(Row{1, {"a", "", "c", ""}}, Row{2, {"", "", "", ""}}));
}

TEST(CsvTest, QuotedFieldsWithEscapesDelimitersAndNewlines) {
  const std::string text =
      "name,note,n\n"
      "\"Smith, J.\",\"said \"\"hi\"\"\",1\n"
      "\"two\nlines\",\"\",2\n"
      "\"a\"\"\",\"\"\"b\",3\n"
      "last,x,4\n";
  EXPECT_THAT(ReadAll(text),
              ElementsAre(Row{1, {"name", "note", "n"}},
                          Row{2, {"Smith, J.", "said \"hi\"", "1"}},
                          Row{3, {"two\nlines", "", "2"}},
                          Row{5, {"a\"", "\"b", "3"}},
                          Row{6, {"last", "x", "4"}}));
}

TEST(CsvTest, BomSemicolonsQuotesAndCrlf) {
  const std::string text =
      "\xEF\xBB\xBFid;name;pool\r\n"
      "1;\"a;b\";p1\r\n"
      "\r\n"
      "2;\"multi\r\nline\";\"p;2\"\r\n"
      "3;plain;p3";
  char delimiter = 0;
  EXPECT_THAT(ReadAll(text, &delimiter),
              ElementsAre(Row{1, {"id", "name", "pool"}}, Row{2, {"1", "a;b", "p1"}},
                          Row{4, {"2", "multi\r\nline", "p;2"}}, Row{6, {"3", "plain", "p3"}}));
  EXPECT_EQ(delimiter, ';');
}

TEST(CsvTest, DelimiterIsDetectedFromTheHeaderOnly) {
  char delimiter = 0;
  // Semicolons inside quotes do not count; later lines do not count.
  EXPECT_THAT(ReadAll("\"a;b;c\",d\n1;2;3;4,5\n", &delimiter),
              ElementsAre(Row{1, {"a;b;c", "d"}}, Row{2, {"1;2;3;4", "5"}}));
  EXPECT_EQ(delimiter, ',');
  EXPECT_THAT(ReadAll("\n\na;b,c;d\n", &delimiter), ElementsAre(Row{3, {"a", "b,c", "d"}}));
  EXPECT_EQ(delimiter, ';');
}

TEST(CsvTest, UnterminatedQuoteNamesTheLineItOpensOn) {
  const std::vector<Row> rows = ReadAll("a,b\n1,2\n3,\"never\nclosed\n\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], (Row{2, {"1", "2"}}));
  EXPECT_EQ(rows[2].line, -1);
  EXPECT_EQ(rows[2].fields[0],
            "in.csv:3: unterminated quoted field (a '\"' opened here is never closed)");
}

TEST(CsvTest, TextAfterClosingQuoteIsAnError) {
  const std::vector<Row> rows = ReadAll("a,b\n\"say \"hi\" now\",2\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].line, -1);
  EXPECT_THAT(rows[1].fields[0], HasSubstr("in.csv:2: unexpected text after a closing quote"));
}

TEST(CsvTest, ErrorSpendsTheInput) {
  CsvReader reader("\"open\n1,2\n", "x");
  CsvRecord record;
  EXPECT_FALSE(reader.Next(&record).ok());
  Result<bool> again = reader.Next(&record);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(CsvTest, ManyEscapedFieldsInOneRecordStayValid) {
  std::string line;
  std::vector<std::string> expected;
  for (int i = 0; i < 40; ++i) {
    const std::string value = "v\"" + std::to_string(i) + "\" with a long enough tail to allocate";
    expected.push_back(value);
    if (i) line += ',';
    line += "\"v\"\"" + std::to_string(i) + "\"\" with a long enough tail to allocate\"";
  }
  EXPECT_THAT(ReadAll(line + "\n"), ElementsAre(Row{1, expected}));
}

}  // namespace
}  // namespace squeeze
