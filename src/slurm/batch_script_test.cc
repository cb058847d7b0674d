#include "slurm/batch_script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "exec/command_runner.h"
#include "exec/run_files.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(BatchScriptTest, NamesRoundTripAndOthersAreNotOurs) {
  JobId id = 0;
  int attempt = 0;
  ASSERT_TRUE(ParseSlurmJobName(SlurmJobName(42, 3), id, attempt));
  EXPECT_EQ(id, 42);
  EXPECT_EQ(attempt, 3);
  for (const char* other : {"wrap", "squeeze-", "squeeze-4", "squeeze-4.", "squeeze-x.1",
                            "squeeze-4.1x", "squeeze-0.1", "squeeze-4.0", "Squeeze-4.1"}) {
    EXPECT_FALSE(ParseSlurmJobName(other, id, attempt)) << other;
  }
}

// sbatch -o/-e: the files filled in here, Slurm's % left alone; emptied at the first attempt
// only when stdout has a file of its own.
TEST(BatchScriptTest, OutputOptionsFillInTheFilesAndEscapePercent) {
  JobRequest r;
  r.spec.name = "train";
  r.workdir = "/home/me/proj";
  std::string note;
  Result<std::vector<std::string>> none = SlurmOutputOptions(7, 1, r, "me", "/d/7.1.log", note);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, (std::vector<std::string>{"--output=/d/7.1.log", "--open-mode=append"}));
  EXPECT_EQ(note, "");

  r.output_path = "out_%j_100%%.txt";
  r.error_path = "/logs/%u/%x_%A_%a.err";
  Result<std::vector<std::string>> first = SlurmOutputOptions(7, 1, r, "me", "/d/7.1.log", note);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, (std::vector<std::string>{"--output=/home/me/proj/out_7_100%%.txt",
                                              "--error=/logs/me/train_7_4294967294.err",
                                              "--open-mode=truncate"}));
  EXPECT_EQ(note, "squeeze: job 7 attempt 1: stdout goes to /home/me/proj/out_7_100%.txt, "
                  "stderr to /logs/me/train_7_4294967294.err\n");
  r.spec.array_id = 5;
  r.spec.array_task = 2;
  Result<std::vector<std::string>> later = SlurmOutputOptions(7, 2, r, "me", "/d/7.2.log", note);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->at(1), "--error=/logs/me/train_5_2.err");
  EXPECT_EQ(later->at(2), "--open-mode=append");

  r.output_path.clear();  // stderr alone: stdout stays in the log, appended to
  Result<std::vector<std::string>> err = SlurmOutputOptions(7, 1, r, "me", "/d/7.1.log", note);
  ASSERT_TRUE(err.ok());
  EXPECT_EQ(err->front(), "--output=/d/7.1.log");
  EXPECT_EQ(err->back(), "--open-mode=append");
  EXPECT_THAT(note, HasSubstr("stdout goes to this log, stderr to /logs/me/train_5_2.err"));

  r.error_path = "bad_%Q";
  EXPECT_FALSE(SlurmOutputOptions(7, 1, r, "me", "/d/7.1.log", note).ok());
}

// A job with a checkpoint store gets the store's variables, and resumes on a node whose folder
// holds no copy once the daemon has recorded a checkpoint (BatchShape::resume).
TEST(BatchScriptTest, AStoredJobResumesWhereItsFolderIsEmpty) {
  ::squeeze::testing::TempDir dir{"squeeze-batch"};
  JobRequest r;
  r.spec.name = "stored";
  r.command = {"bash", "-c", "echo \"$SQUEEZE_CHECKPOINT_STORE\" ${SQUEEZE_RESUME:-none} "
                             "$SQUEEZE_CHECKPOINT_STORE_KEEP"};
  r.workdir = dir.path();
  r.checkpoint_store.url = "s3://ckpt/team a";
  r.checkpoint_store.keep = 2;
  const std::string ckpt = dir.path() + "/empty";
  for (bool resume : {false, true}) {
    BatchShape shape;
    shape.resume = resume;
    std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt, "", shape);
    auto run = RunCommand({"bash", dir.path() + "/job.sh"});
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->out, std::string("s3://ckpt/team a/7 ") + (resume ? "1" : "none") + " 2\n");
  }
  r.checkpoint_store = {};  // without a store, only the folder's marker resumes
  BatchShape shape;
  shape.resume = true;
  r.command = {"bash", "-c", "echo ${SQUEEZE_RESUME:-none}"};
  std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt, "", shape);
  auto plain = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->out, "none\n");
}

// The script, run by bash as Slurm would, passes every word through untouched and sets the
// protocol's environment; SQUEEZE_RESUME appears once a checkpoint is complete.
TEST(BatchScriptTest, RunsTheArgvAsWrittenWithTheProtocolEnvironment) {
  ::squeeze::testing::TempDir dir{"squeeze-batch"};
  JobRequest r;
  r.spec.name = "it's";
  r.command = {"printf", "[%s]\\n", "a b", "it's", "$HOME", "*", "; ls", "`id`"};
  r.env = {{"MY_VAR", "x 'y' $z"}};
  r.workdir = dir.path();
  const std::string ckpt = dir.path() + "/ckpt dir";
  const std::string script = SlurmBatchScript(7, 2, r, ckpt);
  std::ofstream(dir.path() + "/job.sh") << script;
  auto run = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit_code, 0) << run->err;
  EXPECT_EQ(run->out, "[a b]\n[it's]\n[$HOME]\n[*]\n[; ls]\n[`id`]\n");

  r.command = {"bash", "-c",
               "echo $SQUEEZE_JOB_ID $SQUEEZE_ATTEMPT \"$SQUEEZE_CHECKPOINT_DIR\" "
               "${SQUEEZE_RESUME:-none} \"$MY_VAR\" $PWD"};
  std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt);
  auto first = RunCommand({"bash", dir.path() + "/job.sh"}, {{"SQUEEZE_RESUME", "1"}});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->out, "7 2 " + ckpt + " none x 'y' $z " + dir.path() + "\n");
  std::ofstream(ckpt + "/COMPLETE") << "step 5\n";
  auto resumed = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(resumed.ok());
  EXPECT_THAT(resumed->out, HasSubstr(" 1 x 'y' $z"));

  r.workdir = dir.path() + "/missing";
  std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt);
  auto missing = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->exit_code, 127);
  EXPECT_THAT(missing->err, HasSubstr("cannot enter workdir"));
}

// A run on one node learns its shape without asking the controller: one node, rank 0, its GPUs,
// the loopback address and the job's port.
TEST(BatchScriptTest, AOneNodeRunLearnsItsShape) {
  ::squeeze::testing::TempDir dir{"squeeze-batch"};
  JobRequest r;
  r.command = {"bash", "-c",
               "echo $SQUEEZE_NNODES $SQUEEZE_NODE_RANK $SQUEEZE_GPUS_PER_NODE $SQUEEZE_WORLD_SIZE "
               "$SQUEEZE_MASTER_ADDR $SQUEEZE_MASTER_PORT $SQUEEZE_NODELIST "
               "$MASTER_ADDR:$MASTER_PORT $PET_MASTER_ADDR:$PET_MASTER_PORT"};
  std::ofstream(dir.path() + "/job.sh")
      << SlurmBatchScript(40007, 1, r, dir.path() + "/ckpt", "", BatchShape{1, 2, ""});
  auto run = RunCommand({"bash", dir.path() + "/job.sh"}, {{"SLURMD_NODENAME", "east-n2"}});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->out, "1 0 2 2 127.0.0.1 20007 east-n2 127.0.0.1:20007 127.0.0.1:20007\n");
  EXPECT_EQ(MasterPort(7), 20007);
  EXPECT_EQ(MasterPort(40007), 20007);
  // Several nodes: one srun task per node, every task killed when one fails.
  const std::string spread =
      SlurmBatchScript(7, 1, r, dir.path() + "/ckpt", "", BatchShape{4, 4, "/etc/slurm.conf"});
  EXPECT_THAT(spread, HasSubstr("srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --kill-on-bad-exit=1"));
  EXPECT_THAT(spread, HasSubstr("export SQUEEZE_WORLD_SIZE=16\n"));
  // A batch script (tasks given) runs once, on the first node, as sbatch runs it: its own
  // srun starts its tasks, so squeeze's per-node srun would nest them.
  r.tasks = 8;
  const std::string once =
      SlurmBatchScript(7, 1, r, dir.path() + "/ckpt", "", BatchShape{4, 4, "/etc/slurm.conf"});
  EXPECT_THAT(once, Not(HasSubstr("srun")));
  EXPECT_THAT(once, HasSubstr("exec 'bash' '-c' "));
  EXPECT_THAT(once, HasSubstr("export SQUEEZE_NNODES=4\n"));
}

// With an exit record, the command runs as the script's child: its exit status is written down
// as it ends (a failure's code, a signal's 128+N), and the checkpoint request (SIGUSR1) and a
// stop (SIGTERM) that Slurm sends the batch shell reach it.
TEST(BatchScriptTest, WritesTheExitRecordAndPassesSignalsOnToTheCommand) {
  ::squeeze::testing::TempDir dir{"squeeze-batch"};
  const std::string record = dir.path() + "/7.2.exit", ckpt = dir.path() + "/ckpt";
  auto run = [&](std::vector<std::string> command, const std::string& signals) {
    JobRequest r;
    r.command = std::move(command);
    std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt, record);
    std::ofstream(record, std::ios::trunc).close();  // as the executor leaves it
    // The batch shell in the background, signalled as Slurm would (scancel --signal --batch).
    const std::string shell = "bash " + ShellQuote(dir.path() + "/job.sh") + " & pid=$!; " +
                              signals + " wait $pid; echo shell=$?";
    auto out = RunCommand({"bash", "-c", shell}, {}, 20000);
    EXPECT_TRUE(out.ok());
    return std::make_pair(out.ok() ? out->out : "", ReadFileIfPresent(record).value_or(""));
  };
  auto [out, rec] = run({"bash", "-c", "echo ran; exit 3"}, "");
  EXPECT_THAT(out, HasSubstr("ran\nshell=3"));
  EXPECT_EQ(rec, "exit 3\n");
  EXPECT_EQ(ParseExitStatus(rec)->code, 3);

  // A checkpoint request, then the job goes on to finish by itself. Sent once the command has
  // its trap (a loaded machine may take longer than any fixed wait to get there).
  const std::string ready = dir.path() + "/ready";
  const std::string traps = "trap 'echo saved; touch " + ShellQuote(ckpt + "/COMPLETE") +
                            "' USR1; touch " + ShellQuote(ready) +
                            "; for i in $(seq 20); do sleep 0.1; done; echo done";
  std::tie(out, rec) = run({"bash", "-c", traps}, "until [ -e " + ShellQuote(ready) +
                                                      " ]; do sleep 0.05; done; kill -USR1 $pid;");
  EXPECT_THAT(out, HasSubstr("saved"));
  EXPECT_THAT(out, HasSubstr("done\nshell=0"));
  EXPECT_EQ(rec, "exit 0\n");

  // While the command runs, the record says the script has started (squeeze sends a checkpoint
  // request only then), and nothing that reads as an exit.
  std::tie(out, rec) = run({"bash", "-c", "sleep 0.3; cat " + ShellQuote(record) + "; echo ran"}, "");
  EXPECT_THAT(out, HasSubstr("started\nran"));
  EXPECT_FALSE(ParseExitStatus("started\n").has_value());

  // A stop: SIGTERM to the batch shell ends the command, which did not trap it.
  std::tie(out, rec) = run({"sleep", "30"}, "until grep -q started " + ShellQuote(record) +
                                                "; do sleep 0.05; done; kill -TERM $pid;");
  EXPECT_EQ(rec, "exit 143\n") << out;
}

}  // namespace
}  // namespace squeeze
