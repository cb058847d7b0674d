#include "core/safe_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

TEST(SafeTextTest, AcceptsValidUtf8OfEveryLength) {
  EXPECT_EQ(InvalidUtf8At(""), std::nullopt);
  EXPECT_EQ(InvalidUtf8At("plain ascii"), std::nullopt);
  EXPECT_EQ(InvalidUtf8At("caf\xC3\xA9"), std::nullopt);                // U+00E9
  EXPECT_EQ(InvalidUtf8At("\xE6\x8E\x92\xE9\x98\x9F"), std::nullopt);   // 排队
  EXPECT_EQ(InvalidUtf8At("\xF0\x9F\x98\x80"), std::nullopt);           // U+1F600
  EXPECT_EQ(InvalidUtf8At("\xF4\x8F\xBF\xBF"), std::nullopt);           // U+10FFFF
  EXPECT_EQ(InvalidUtf8At("\xED\x9F\xBF"), std::nullopt);               // U+D7FF
}

TEST(SafeTextTest, FindsEveryKindOfBrokenSequence) {
  EXPECT_EQ(InvalidUtf8At("ab\xFF"), 2u);               // never a byte of UTF-8
  EXPECT_EQ(InvalidUtf8At("\x80"), 0u);                 // a lone continuation byte
  EXPECT_EQ(InvalidUtf8At("x\xC3"), 1u);                // cut short at the end
  EXPECT_EQ(InvalidUtf8At("\xE6\x8E" "a"), 0u);         // cut short before a new character
  EXPECT_EQ(InvalidUtf8At("\xC0\xAF"), 0u);             // overlong '/'
  EXPECT_EQ(InvalidUtf8At("\xC1\xBF"), 0u);             // overlong
  EXPECT_EQ(InvalidUtf8At("\xE0\x80\xAF"), 0u);         // overlong, three bytes
  EXPECT_EQ(InvalidUtf8At("\xF0\x80\x80\xAF"), 0u);     // overlong, four bytes
  EXPECT_EQ(InvalidUtf8At("\xED\xA0\x80"), 0u);         // a surrogate (U+D800)
  EXPECT_EQ(InvalidUtf8At("\xF4\x90\x80\x80"), 0u);     // above U+10FFFF
  EXPECT_EQ(InvalidUtf8At("\xF5\x80\x80\x80"), 0u);
}

TEST(SafeTextTest, ReplacesEachMaximalBrokenPartWithOneReplacementCharacter) {
  EXPECT_EQ(ValidUtf8("fine \xC3\xA9"), "fine \xC3\xA9");
  EXPECT_EQ(ValidUtf8("a\xFF" "b"), "a" + std::string(kReplacement) + "b");
  // A cut-short sequence is one ill-formed part; the byte after it starts again.
  EXPECT_EQ(ValidUtf8("\xE6\x8E" "a"), std::string(kReplacement) + "a");
  // An overlong form: neither byte can start or continue a sequence, so two.
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), std::string(kReplacement) + std::string(kReplacement));
  EXPECT_EQ(InvalidUtf8At(ValidUtf8("\xED\xA0\x80\xF4\x90\x80\x80 x \xC3")), std::nullopt);
}

TEST(SafeTextTest, KnowsTheControlsATerminalActsOn) {
  for (char32_t c : {U'\0', U'\x1b', U'\r', U'\n', U'\t', U'\x7f', U'\x80', U'\x85', U'\x9b',
                     U'\x9f', U'\x202e', U'\x2066', U'\x200f', U'\x2028'}) {
    EXPECT_TRUE(IsControl(c)) << static_cast<unsigned>(c);
  }
  for (char32_t c : {U' ', U'~', U'\xa0', U'\xe9', U'\x6392', U'\x200b', U'\x1f600'}) {
    EXPECT_FALSE(IsControl(c)) << static_cast<unsigned>(c);
  }
}

TEST(SafeTextTest, FindsTheFirstControlNotAllowed) {
  EXPECT_EQ(FindControl("plain \xC3\xA9"), std::nullopt);
  auto esc = FindControl("ab\x1b[2J");
  ASSERT_TRUE(esc);
  EXPECT_EQ(esc->at, 2u);
  EXPECT_EQ(esc->code, U'\x1b');
  auto c1 = FindControl("x\xC2\x9B" "31m");  // CSI as a C1 character
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->code, U'\x9b');
  EXPECT_EQ(FindControl("line\tone\nline two", "\t\n"), std::nullopt);
  EXPECT_EQ(FindControl("tab\tthen\rCR", "\t\n")->code, U'\r');
  EXPECT_EQ(FindControl("del\x7f")->code, U'\x7f');
  EXPECT_EQ(FindControl("rtl\xE2\x80\xAEtxt")->code, U'\x202e');
}

TEST(SafeTextTest, EscapesControlsVisiblyAndReplacesBrokenBytes) {
  EXPECT_EQ(EscapeControls("nothing to do"), "nothing to do");
  EXPECT_EQ(EscapeControls("\x1b[2Jhi\r\n\t"), "\\x1b[2Jhi\\r\\n\\t");
  EXPECT_EQ(EscapeControls(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(EscapeControls("del\x7f c1\xC2\x85 rtl\xE2\x80\xAE"),
            "del\\x7f c1\\u0085 rtl\\u202e");
  EXPECT_EQ(EscapeControls("bad\xFF" "byte"), "bad" + std::string(kReplacement) + "byte");
  EXPECT_EQ(EscapeControls("two\nlines\x1b", "\n"), "two\nlines\\x1b");
  EXPECT_EQ(EscapeControls("\xE6\x8E\x92\xE9\x98\x9F"), "\xE6\x8E\x92\xE9\x98\x9F");
  // What comes out never holds a control or a broken byte, whatever went in.
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += static_cast<char>(b);
  const std::string shown = EscapeControls(every_byte);
  EXPECT_EQ(InvalidUtf8At(shown), std::nullopt);
  EXPECT_EQ(FindControl(shown), std::nullopt);
}

TEST(SafeTextTest, JsonForATerminalEscapesWhatJsonLeavesRaw) {
  // As nlohmann::json dumps it: C0 escaped, DEL, C1 and the formats as they are.
  const std::string dumped = "{\n  \"name\": \"a\\u001b\x7f\xC2\x9b\xE2\x80\xAE \xC3\xA9\"\n}";
  EXPECT_EQ(JsonForTerminal(dumped),
            "{\n  \"name\": \"a\\u001b\\u007f\\u009b\\u202e \xC3\xA9\"\n}");
  EXPECT_EQ(JsonForTerminal("[\"\xFF\"]"), "[\"\xEF\xBF\xBD\"]");
}

TEST(SafeTextTest, QuotesAValueByteForByteAndCutsALongOne) {
  EXPECT_EQ(QuotedValue("a\x1b" "b\xFF"), "'a\\x1bb\\xff'");
  EXPECT_EQ(QuotedValue("\xC0\xAF"), "'\\xc0\\xaf'");
  EXPECT_EQ(QuotedValue(std::string(100, 'x'), 10), "'xxxxxxxxxx...'");
  EXPECT_EQ(QuotedValue("\xE6\x8E\x92", 1), "'\xE6\x8E\x92'");
}

TEST(SafeTextTest, ChecksAFieldNamingItAndShowingTheValue) {
  EXPECT_TRUE(CheckPlainText("name", "resnet-50", "names are printed to other users").ok());
  Status esc = CheckPlainText("name", "\x1b[2Jhi", "names are printed to other users");
  ASSERT_FALSE(esc.ok());
  EXPECT_EQ(esc.message(),
            "name: '\\x1b[2Jhi' holds a control character (\\x1b); names are printed to other "
            "users");
  for (std::string bad : {std::string("a\rb"), std::string("a\0b", 3), std::string("a\x7f"),
                          std::string("a\xC2\x9b"), std::string("a\n")}) {
    EXPECT_FALSE(CheckPlainText("output", bad, "why").ok()) << EscapeControls(bad);
  }
  Status utf8 = CheckPlainText("workdir", "/tmp/\xC0\xAF", "why");
  ASSERT_FALSE(utf8.ok());
  EXPECT_THAT(utf8.message(), HasSubstr("workdir: '/tmp/\\xc0\\xaf' is not valid UTF-8 (byte "
                                        "\\xc0 at offset 5)"));
  EXPECT_TRUE(CheckPlainText("command[2]", "print(1)\n\tx", "why", "\t\n").ok());
  EXPECT_FALSE(CheckPlainText("command[2]", std::string("a\0", 2), "why", "\t\n").ok());
}

}  // namespace
}  // namespace squeeze
