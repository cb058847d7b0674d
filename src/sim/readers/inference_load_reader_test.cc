#include "sim/readers/inference_load_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/readers/archive.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Points = std::vector<std::pair<Time, double>>;

constexpr char kHeader[] = "value,timestamp_anon,container_ip\n";

std::string Gzip(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                         Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One ustar entry: header and data padded to 512 bytes.
std::string TarEntry(const std::string& name, const std::string& data, char type = '0') {
  std::string h(512, '\0');
  h.replace(0, name.size(), name);
  std::snprintf(h.data() + 100, 8, "%07o", 0644);
  std::snprintf(h.data() + 124, 12, "%011lo", static_cast<unsigned long>(data.size()));
  h[156] = type;
  h.replace(257, 6, std::string("ustar\0", 6));
  h.replace(263, 2, "00");
  h.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h.data() + 148, 8, "%06o", sum);
  std::string padded = data;
  padded.resize((data.size() + 511) / 512 * 512, '\0');
  return h + padded;
}

std::string TarEnd() { return std::string(1024, '\0'); }

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/squeeze_inference_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ErrorOf(const Result<InferenceLoad>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

// Two full containers, one at a single timestamp of the four (dropped); steps 60, 60, 57.
constexpr char kSmall[] =
    "value,timestamp_anon,container_ip\n"
    "10,1000.0,b\n"
    "50,1000.0,a\n"
    "50.0,1060,a\n"
    "20,1060,b\n"
    "7,1060,c\n"
    "100,1120,a\n"
    "20,1120,b\n"
    "0,1177,b\n"
    "100.0004,1177,a\n";

TEST(InferenceLoadReaderTest, KeepsFullSeriesOrderedById) {
  Result<InferenceLoad> r = ParseInferenceLoad(kSmall, "small.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "small.csv");
  ASSERT_EQ(r->series.size(), 2u);
  EXPECT_EQ(r->series[0].id, "a");
  EXPECT_EQ(r->series[0].points, (Points{{0, 0.5}, {Seconds(120), 1.0}}));  // steps merged
  EXPECT_EQ(r->series[1].id, "b");
  EXPECT_EQ(r->series[1].points, (Points{{0, 0.1}, {Seconds(60), 0.2}, {Seconds(177), 0.0}}));
  EXPECT_EQ(r->period, Seconds(177 + 60));  // last - first + the median step
}

TEST(InferenceLoadReaderTest, ASeriesStartingLateGetsItsFirstValueAtZero) {
  std::string text = kHeader;
  for (int t = 0; t < 10; ++t) {
    text += "5," + std::to_string(100 + 10 * t) + ",full\n";
    if (t > 0) text += std::to_string(10 * t) + "," + std::to_string(100 + 10 * t) + ",late\n";
    if (t > 1) text += "1," + std::to_string(100 + 10 * t) + ",short\n";
  }
  Result<InferenceLoad> r = ParseInferenceLoad(text, "late.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->series.size(), 2u);  // 9 of 10 kept, 8 of 10 dropped
  EXPECT_EQ(r->series[0].id, "full");
  EXPECT_EQ(r->series[0].points, (Points{{0, 0.05}}));
  EXPECT_EQ(r->series[1].id, "late");
  EXPECT_EQ(r->series[1].points.front(), (std::pair<Time, double>{0, 0.1}));
  EXPECT_EQ(r->series[1].points[1], (std::pair<Time, double>{Seconds(20), 0.2}));
  EXPECT_EQ(r->period, Seconds(100));
  EXPECT_NEAR(MeanInferenceLoad(*r), (0.05 + (0.1 * 2 + 0.2 + 0.3 + 0.4 + 0.5 + 0.6 + 0.7 +
                                              0.8 + 0.9) / 10) / 2,
              1e-12);
}

TEST(InferenceLoadReaderTest, ColumnsInAnyOrderAndCase) {
  Result<InferenceLoad> r =
      ParseInferenceLoad("Container_IP;VALUE;Timestamp_Anon\nx;20;0\nx;40;30\n", "order.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->series.size(), 1u);
  EXPECT_EQ(r->series[0].points, (Points{{0, 0.2}, {Seconds(30), 0.4}}));
  EXPECT_EQ(r->period, Seconds(60));
}

TEST(InferenceLoadReaderTest, BadTextsNameFileLineColumnAndValue) {
  const std::string h = kHeader;
  const std::pair<std::string, std::string> cases[] = {
      {"", "t.csv: the file is empty; expected the header value,timestamp_anon,container_ip"},
      {"value,container_ip\n1,2\n", "t.csv:1: missing column 'timestamp_anon'"},
      {h + "1,0,a\n12x,60,a\n", "t.csv:3: column 'value': value '12x' is not a number"},
      {h + "1,0,a\n-1,60,a\n",
       "t.csv:3: column 'value': value '-1' must be a percentage from 0 to 100"},
      {h + "1,0,a\n100.5,60,a\n",
       "t.csv:3: column 'value': value '100.5' must be a percentage from 0 to 100"},
      {h + "1,0,a\n1,soon,a\n", "t.csv:3: column 'timestamp_anon': value 'soon' is not a number"},
      {h + "1,0,a\n1,-5,a\n", "t.csv:3: column 'timestamp_anon': value '-5' must be seconds"},
      {h + "1,0,a\n1,60,\n", "t.csv:3: column 'container_ip': value '' is empty"},
      {h + "1,0,a\n1,60\n", "t.csv:3: column 'container_ip' is missing (the row has 2 fields)"},
      {h + "1,0,a\n2,60,a\n3,60,a\n",
       "t.csv:4: container 'a' has a second sample at timestamp 60 (the first on line 3)"},
      {h, "t.csv: needs samples at two timestamps at least, has 0"},
      {h + "1,0,a\n1,0,b\n", "t.csv: needs samples at two timestamps at least, has 1"},
      {h + "1,\"0,a\n", "t.csv:2:"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_THAT(ErrorOf(ParseInferenceLoad(text, "t.csv")), HasSubstr(message)) << text;
  }
}

TEST(InferenceLoadReaderTest, NoUsableSeries) {
  std::string text = kHeader;
  for (int t = 0; t < 10; ++t) text += "1," + std::to_string(t) + ",c" + std::to_string(t) + "\n";
  EXPECT_EQ(ErrorOf(ParseInferenceLoad(text, "t.csv")),
            "t.csv: no usable series: none of the 10 containers has a sample at 90% of the 10 "
            "timestamps (the most: 1)");
}

TEST(InferenceLoadReaderTest, ReadsPlainGzippedAndTarGzFiles) {
  const std::string tar = TarEntry("data/README.md", "hello\n") +
                          TarEntry("data/", "", '5') + TarEntry("data/load.CSV", kSmall) + TarEnd();
  const std::string two_members =
      Gzip(std::string(kSmall).substr(0, 40)) + Gzip(std::string(kSmall).substr(40));
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"plain.csv", kSmall},
                                    {"plain.csv.gz", Gzip(kSmall)},
                                    {"bundle.tar", tar},
                                    {"bundle.tar.gz", Gzip(tar)},
                                    {"two-members.csv.gz", two_members}}) {
    const std::string path = WriteTemp(name, bytes);
    Result<InferenceLoad> r = ReadInferenceLoad(path);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    EXPECT_EQ(r->source, path);
    ASSERT_EQ(r->series.size(), 2u) << name;
    EXPECT_EQ(r->period, Seconds(237)) << name;
  }
}

TEST(InferenceLoadReaderTest, ErrorsInsideATarNameTheMember) {
  const std::string path =
      WriteTemp("bad-row.tar.gz",
                Gzip(TarEntry("x.csv", std::string(kHeader) + "1,0,a\nz,1,a\n") + TarEnd()));
  EXPECT_EQ(ErrorOf(ReadInferenceLoad(path)),
            path + "[x.csv]:3: column 'value': value 'z' is not a number");
}

TEST(InferenceLoadReaderTest, BrokenArchives) {
  const std::string tar = TarEntry("load.csv", kSmall) + TarEnd();
  const std::string gz = Gzip(tar);
  std::string flipped = gz;
  for (size_t i = 20; i < 40; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  std::string bad_sum = tar;
  bad_sum[0] = 'L';
  std::string bad_size = tar;
  bad_size.replace(124, 11, "77777777777");
  bad_size.replace(148, 8, "        ");
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += static_cast<unsigned char>(bad_size[i]);
  std::snprintf(bad_size.data() + 148, 8, "%06o", sum);
  const std::pair<std::string, std::string> cases[] = {
      {Gzip(tar).substr(0, gz.size() / 2), "truncated gzip data"},
      {gz.substr(0, gz.size() - 4), "truncated gzip data"},
      {flipped, "corrupt gzip data"},
      {gz + "junk", "4 bytes of garbage after the gzip data"},
      {Gzip(tar.substr(0, 560)), "truncated tar archive: 'load.csv' needs"},
      {Gzip(TarEntry("a.txt", "x") + bad_sum.substr(0, 300)),
       "truncated tar archive: a header at byte 1024 has only 300 of its 512 bytes"},
      {Gzip(TarEntry("a.txt", "x") + bad_sum), "corrupt tar archive: the header at byte 1024"},
      {Gzip(bad_size), "truncated tar archive: 'load.csv' needs"},
      {Gzip(TarEntry("notes.txt", "x") + TarEnd()),
       "the tar archive holds no file whose name ends in '.csv'"},
      {Gzip(""), "the file is empty"},
  };
  int n = 0;
  for (const auto& [bytes, message] : cases) {
    const std::string path = WriteTemp("broken" + std::to_string(n++) + ".tar.gz", bytes);
    const std::string error = ErrorOf(ReadInferenceLoad(path));
    EXPECT_THAT(error, HasSubstr(path)) << n;
    EXPECT_THAT(error, HasSubstr(message)) << n;
  }
  EXPECT_THAT(ErrorOf(ReadInferenceLoad("/nonexistent/load.tar.gz")),
              HasSubstr("cannot open '/nonexistent/load.tar.gz'"));
}

// The mean of the real trace's kept series, measured once (python3 and this reader agree).
constexpr double kMeasuredMean = 0.065195;

TEST(InferenceLoadReaderTest, RealPodDutyCycleTrace) {
  const std::string path =
      SQUEEZE_SHARED_DIR "/traces/inference/pod_gpu_duty_cycle_anon.tar.gz";
  if (access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " is not readable";
  Result<InferenceLoad> r = ReadInferenceLoad(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 143 containers over 1441 timestamps 57 s apart; 72 have every sample, 94 have >= 90%.
  EXPECT_EQ(r->series.size(), 94u);
  EXPECT_EQ(r->period, Seconds(82080 + 57));
  for (const LoadSeries& s : r->series) {
    ASSERT_FALSE(s.points.empty());
    EXPECT_EQ(s.points.front().first, 0);
    for (const auto& [t, load] : s.points) {
      EXPECT_GE(load, 0);
      EXPECT_LE(load, 1);
      EXPECT_LT(t, r->period);
    }
  }
  const double mean = MeanInferenceLoad(*r);
  std::printf("mean inference load of %zu series: %.6f\n", r->series.size(), mean);
  EXPECT_NEAR(mean, kMeasuredMean, kMeasuredMean * 0.01);
}

}  // namespace
}  // namespace squeeze
