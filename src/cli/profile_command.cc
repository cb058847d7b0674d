#include "cli/profile_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cli/store_history.h"
#include "config/text_util.h"
#include "sim/readers/trace_reader.h"
#include "sim/writers/job_profile_writer.h"

namespace squeeze {
namespace {

struct ProfileFlags {
  std::string check_file;
  std::string store;
  std::string trace;
  std::string out;
  bool excel = false;
  bool semicolon = false;
};

int RunCheck(const ProfileFlags& f) {
  auto trace = ReadTrace(f.check_file, ReadOptions{});
  if (!trace.ok()) {
    std::cerr << "squeeze profile check: " << trace.status().message() << "\n";
    return 1;
  }
  if (trace->format != "job-profile") {
    std::cerr << "squeeze profile check: " << f.check_file << " is a " << trace->format
              << " trace, not a job-profile CSV (docs/job-profile-csv.md)\n";
    return 1;
  }
  std::cout << f.check_file << ": " << Counted(static_cast<int64_t>(trace->jobs.size()), "job")
            << ", no errors\n";
  return 0;
}

int RunExport(const ProfileFlags& f) {
  if (f.store.empty() == f.trace.empty()) {
    std::cerr << "squeeze profile export: give one source: --store PATH (a squeeze serve data "
                 "directory) or --trace FILE (a trace simulate reads)\n";
    return 2;
  }
  Trace trace;
  if (!f.store.empty()) {
    auto s = ReadStoreHistory(f.store);
    if (!s.ok()) {
      std::cerr << "squeeze profile export: " << s.status().message() << "\n";
      return 1;
    }
    trace = std::move(s->trace);
  } else {
    auto t = ReadTrace(f.trace, ReadOptions{});
    if (!t.ok()) {
      std::cerr << "squeeze profile export: " << t.status().message() << "\n";
      return 1;
    }
    trace = std::move(*t);
  }
  ProfileCsvOptions options;
  options.excel = f.excel;
  options.delimiter = f.semicolon ? ';' : ',';
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (!f.out.empty()) {
    file.open(f.out, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "squeeze profile export: --out " << f.out << ": cannot be written\n";
      return 1;
    }
    out = &file;
  }
  Status st = WriteJobProfileCsv(trace, options, out);
  if (!st.ok()) {
    std::cerr << "squeeze profile export: " << st.message() << "\n";
    return 1;
  }
  if (!f.out.empty()) {
    std::cerr << "wrote " << Counted(static_cast<int64_t>(trace.jobs.size()), "job") << " to "
              << f.out << "\n";
  }
  return 0;
}

}  // namespace

void RegisterProfileCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto flags = std::make_shared<ProfileFlags>();
  auto* profile = app.add_subcommand(
      "profile", "The job-profile table (a CSV Excel opens and writes): check one, or export a "
                 "daemon's job history or a trace as one (docs/job-profile-csv.md)");
  profile->require_subcommand(1);
  auto* check = profile->add_subcommand(
      "check", "Read a job-profile CSV whole: every error by row and column, or how many jobs "
               "it holds; nothing is taken from a file with an error");
  check->add_option("FILE", flags->check_file, "The job-profile CSV")->required();
  out.emplace_back(check, [flags] { return RunCheck(*flags); });
  auto* exp = profile->add_subcommand(
      "export", "Write a squeeze serve job history (--store) or a trace simulate reads "
                "(--trace) as a job-profile CSV, which simulate --trace and advise --history "
                "read back");
  exp->add_option("--store", flags->store,
                  "A squeeze serve data directory (or its squeeze.db): its finished jobs");
  exp->add_option("--trace", flags->trace, "A trace simulate --trace reads: Philly CSV or "
                                            "job-profile CSV");
  exp->add_option("--out", flags->out, "Write here instead of standard output");
  exp->add_flag("--excel", flags->excel, "Start with a UTF-8 byte-order mark and end lines with "
                                          "CRLF, as Excel writes CSV");
  exp->add_flag("--semicolon", flags->semicolon,
                "Separate fields with ';' (Excel in locales that write decimal commas)");
  out.emplace_back(exp, [flags] { return RunExport(*flags); });
}

}  // namespace squeeze
