#include "serve/log_text.h"

#include <gtest/gtest.h>

#include "core/safe_text.h"

namespace squeeze {
namespace {

constexpr std::string_view kQueue = "\xE6\x8E\x92\xE9\x98\x9F";  // two 3-byte characters

TEST(LogTextTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const LogText t = LogTextOf("ok \xFF\xFE done\n", 11, std::nullopt);
  EXPECT_EQ(t.text, "ok \xEF\xBF\xBD\xEF\xBF\xBD done\n");
  EXPECT_EQ(t.next_from_byte, 11);  // the file's bytes, not the text's
  EXPECT_EQ(InvalidUtf8At(t.text), std::nullopt);
  // Controls are the job's own output, shown as cat would.
  EXPECT_EQ(LogTextOf("\x1b[31mred\r\n", 15, 5).text, "\x1b[31mred\r\n");
}

TEST(LogTextTest, ATailThatBeginsInsideACharacterSkipsItsRest) {
  const std::string log = "a" + std::string(kQueue);
  // The last 5 bytes begin inside the first character: its last 2 bytes are left out.
  const LogText t = LogTextOf(std::string_view(log).substr(2), 7, std::nullopt);
  EXPECT_EQ(t.text, "\xE9\x98\x9F");
  EXPECT_EQ(t.next_from_byte, 7);
  // The whole file is no cut.
  EXPECT_EQ(LogTextOf(log, 7, std::nullopt).text, log);
}

TEST(LogTextTest, AStretchThatStopsInsideACharacterLeavesItToTheNextRead) {
  const std::string log = "ab" + std::string(kQueue);
  const LogText first = LogTextOf(std::string_view(log).substr(0, 4), 8, 0);
  EXPECT_EQ(first.text, "ab");
  EXPECT_EQ(first.next_from_byte, 2);
  const LogText second = LogTextOf(std::string_view(log).substr(2), 8, 2);
  EXPECT_EQ(second.text, kQueue);
  EXPECT_EQ(second.next_from_byte, 8);
  // A stretch that is nothing but a cut character still moves on (as U+FFFD).
  const LogText alone = LogTextOf(std::string_view(log).substr(2, 2), 8, 2);
  EXPECT_EQ(alone.next_from_byte, 4);
  EXPECT_EQ(alone.text, "\xEF\xBF\xBD");
  // The end of the file is not cut: a broken last character is shown as U+FFFD.
  EXPECT_EQ(LogTextOf("x\xE6\x8E", 3, 0).text, "x\xEF\xBF\xBD");
  // A read from past the end is empty and stays at the end.
  EXPECT_EQ(LogTextOf("", 8, 20).next_from_byte, 8);
}

}  // namespace
}  // namespace squeeze
