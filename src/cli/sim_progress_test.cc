#include "cli/sim_progress.h"

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

SimProgress At(double days, size_t finished, size_t waiting, size_t running, bool end = false) {
  SimProgress p;
  p.now = static_cast<Time>(days * 86400) * kSecond;
  p.finished = finished;
  p.jobs = 68503;
  p.done = end ? 1.0 : static_cast<double>(finished) / p.jobs;
  p.waiting = waiting;
  p.running = running;
  p.end = end;
  return p;
}

struct Printer {
  double wall = 100;  // the fake clock, seconds
  std::ostringstream out;
  std::function<void(const SimProgress&)> report;

  Printer(bool terminal, double every_s) {
    ProgressStyle style;
    style.prefix = "squeeze simulate: ";
    style.name = "fifo";
    style.terminal = terminal;
    style.every_s = every_s;
    style.clock = [this] { return wall; };
    report = MakeProgressPrinter(style, &out);
  }
};

TEST(SimProgressTest, PlainLineSaysWhereTheRunIs) {
  EXPECT_EQ(PlainProgressLine("fifo", At(13.8, 6858, 17073, 24), 6.2),
            "fifo: day 13.8, 6,858 of 68,503 jobs done (10.0%), 17,073 waiting, 24 running, 6 s");
  EXPECT_EQ(PlainProgressLine("v squeeze", At(60, 68503, 0, 0, true), 1234),
            "v squeeze: day 60.0, 68,503 of 68,503 jobs done (100.0%), 0 waiting, 0 running, "
            "1234 s, finished");
}

// Not a terminal: nothing before `every_s` has passed, then one line at most that often, and
// a last line only after earlier ones.
TEST(SimProgressTest, PlainLinesComeEveryFewSecondsOfWallTime) {
  Printer p(false, 5);
  p.report(At(1, 10, 100, 8));
  p.wall = 104.9;
  p.report(At(2, 20, 100, 8));
  EXPECT_EQ(p.out.str(), "");
  p.wall = 105;
  p.report(At(3, 30, 120, 8));
  p.wall = 107;
  p.report(At(4, 40, 130, 8));
  p.wall = 110.5;
  p.report(At(5, 50, 140, 8));
  p.wall = 111;
  p.report(At(6, 68503, 0, 0, true));
  EXPECT_EQ(p.out.str(),
            "squeeze simulate: fifo: day 3.0, 30 of 68,503 jobs done (0.0%), 120 waiting, 8 "
            "running, 5 s\n"
            "squeeze simulate: fifo: day 5.0, 50 of 68,503 jobs done (0.1%), 140 waiting, 8 "
            "running, 10 s\n"
            "squeeze simulate: fifo: day 6.0, 68,503 of 68,503 jobs done (100.0%), 0 waiting, 0 "
            "running, 11 s, finished\n");
}

TEST(SimProgressTest, AShortRunPrintsNothing) {
  Printer p(false, 5);
  p.report(At(1, 10, 100, 8));
  p.wall = 101;
  p.report(At(2, 68503, 0, 0, true));
  EXPECT_EQ(p.out.str(), "");
}

TEST(SimProgressTest, EveryZeroWritesEachReport) {
  Printer p(false, 0);
  p.report(At(1, 10, 100, 8));
  p.report(At(2, 68503, 0, 0, true));
  EXPECT_THAT(p.out.str(), ::testing::StartsWith("squeeze simulate: fifo: day 1.0, 10 of"));
  EXPECT_THAT(p.out.str(), ::testing::EndsWith(", finished\n"));
}

// A terminal: one line rewritten in place at every report, ended at the last.
TEST(SimProgressTest, TerminalRewritesOneLine) {
  Printer p(true, 5);
  p.report(At(1, 6858, 17073, 24));
  p.report(At(60, 68503, 0, 0, true));
  const std::string out = p.out.str();
  EXPECT_THAT(out, ::testing::StartsWith("\rfifo              10.0%  day 1.0, 17,073 waiting, "
                                         "24 running"));
  EXPECT_THAT(out, ::testing::HasSubstr("\rfifo             100.0%  day 60.0, 0 waiting"));
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
}

}  // namespace
}  // namespace squeeze
