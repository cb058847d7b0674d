// The job-profile CSV (docs/job-profile-csv.md) read and written at 100,000 rows: a clean file
// (every column filled by the writer from a synthetic trace, Excel's BOM and CRLF), the same
// file with semicolons, and one with an error in every 10th row (rejected whole, every error
// listed). Google Benchmark; build in Release (bench/README.md).
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "bench/synthetic_trace.h"
#include "sim/readers/trace_reader.h"
#include "sim/writers/job_profile_writer.h"

namespace squeeze {
namespace {

constexpr int kRows = 100'000;

const Trace& SourceTrace() {
  static const Trace trace = [] {
    bench::SyntheticOptions o;
    o.jobs = kRows;
    Trace t = bench::MakeSyntheticTrace(o);
    for (size_t i = 0; i < t.jobs.size(); ++i) {  // fill the columns a team's table has
      JobSpec& s = t.jobs[i].spec;
      s.gpu_models = {i % 3 == 0 ? "A100" : "H100"};
      s.urgency = static_cast<Urgency>(i % 4);
      if (i % 5 == 0) s.deadline = s.submit_time + kDay;
      if (s.name.empty()) s.name = "train \"run\", " + std::to_string(i);  // quoted on write
    }
    return t;
  }();
  return trace;
}

std::string ProfileText(char delimiter) {
  std::ostringstream out;
  ProfileCsvOptions o;
  o.excel = true;
  o.delimiter = delimiter;
  if (!WriteJobProfileCsv(SourceTrace(), o, &out).ok()) return {};
  return out.str();
}

void BM_ReadProfile(benchmark::State& state, char delimiter) {
  const std::string text = ProfileText(delimiter);
  size_t jobs = 0;
  for (auto _ : state) {
    auto trace = ParseTrace(text, "profile.csv", ReadOptions{});
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    jobs = trace->jobs.size();
    benchmark::DoNotOptimize(trace);
  }
  state.counters["rows"] = static_cast<double>(jobs);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(jobs),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

void BM_RejectErrorLaden(benchmark::State& state) {
  // Every 10th data row gets a GPU count of "many": 10,000 errors, all counted.
  std::string text = ProfileText(',');
  std::string broken;
  broken.reserve(text.size());
  size_t line = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size() - 1;
    std::string row = text.substr(start, end + 1 - start);
    if (line > 0 && line % 10 == 0) {
      // fields: id,submit_time,duration,gpus,...: replace the 4th field
      size_t a = row.find(','), b = row.find(',', a + 1), c = row.find(',', b + 1),
             d = row.find(',', c + 1);
      row = row.substr(0, c + 1) + "many" + row.substr(d);
    }
    broken += row;
    ++line;
    start = end + 1;
  }
  size_t message = 0;
  for (auto _ : state) {
    auto trace = ParseTrace(broken, "profile.csv", ReadOptions{});
    if (trace.ok()) {
      state.SkipWithError("the error-laden file was accepted");
      return;
    }
    message = trace.status().message().size();
    benchmark::DoNotOptimize(trace);
  }
  state.counters["message_bytes"] = static_cast<double>(message);
}

void BM_WriteProfile(benchmark::State& state) {
  for (auto _ : state) {
    std::ostringstream out;
    ProfileCsvOptions o;
    o.excel = true;
    benchmark::DoNotOptimize(WriteJobProfileCsv(SourceTrace(), o, &out));
  }
  state.counters["rows"] = kRows;
}

BENCHMARK_CAPTURE(BM_ReadProfile, comma, ',')->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadProfile, semicolon, ';')->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RejectErrorLaden)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteProfile)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace squeeze

BENCHMARK_MAIN();
