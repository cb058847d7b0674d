#include "exec/local_executor.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <filesystem>

#include "exec/local_run_env.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "exec/testing/local_executor_fixture.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(LocalExecutorTest, ReportsExitCodeAndLogAndNeverStartsAnAttemptTwice) {
  LocalExecutor ex(Options());
  JobRequest request = Request({"sh", "-c", "echo hello from the job; echo oops >&2; exit 7"});
  MustStart(ex, 1, 1, request);
  std::vector<ExecEvent> events = PollUntilExit(ex);
  ASSERT_EQ(events.back().kind, Kind::kExited);
  EXPECT_EQ(events.back().id, 1);
  EXPECT_EQ(events.back().attempt, 1);
  EXPECT_EQ(events.back().exit, (ExitStatus{false, 7, ""}));
  EXPECT_THAT(Log(1, 1), HasSubstr("hello from the job\noops\n"));
  EXPECT_FALSE(ex.IsRunning(1));
  Result<RunInfo> again = ex.Start(1, 1, request, RunPlace{}, false);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("already started"));
}

// sbatch -o/-e: the run writes its stdout and stderr to the job's files, emptied at the first
// attempt and appended to at later ones; the log says where they went.
TEST_F(LocalExecutorTest, WritesOutputFilesAndAppendsAtLaterAttempts) {
  const std::string work = dir_ + "/work";
  ASSERT_EQ(mkdir(work.c_str(), 0755), 0);
  JobRequest request =
      Request({"sh", "-c", "echo out $SQUEEZE_ATTEMPT; echo err $SQUEEZE_ATTEMPT >&2"});
  request.spec.name = "writer";
  request.workdir = work;
  request.output_path = "out_%j.txt";
  request.error_path = work + "/%x_%A_%a.err";
  const std::string out = work + "/out_9.txt", err = work + "/writer_9_4294967294.err";
  ASSERT_TRUE(WriteFileAtomically(out, "stale\n").ok());
  LocalExecutor ex(Options());
  MustStart(ex, 9, 1, request);
  EXPECT_EQ(PollUntilExit(ex).back().exit, (ExitStatus{false, 0, ""}));
  EXPECT_EQ(ReadFileIfPresent(out).value_or("<none>"), "out 1\n");
  EXPECT_EQ(ReadFileIfPresent(err).value_or("<none>"), "err 1\n");
  EXPECT_THAT(Log(9, 1), HasSubstr("stdout goes to " + out + ", stderr to " + err));
  EXPECT_THAT(Log(9, 1), Not(HasSubstr("out 1")));
  MustStart(ex, 9, 2, request);
  PollUntilExit(ex);
  EXPECT_EQ(ReadFileIfPresent(out).value_or("<none>"), "out 1\nout 2\n");
  EXPECT_EQ(ReadFileIfPresent(err).value_or("<none>"), "err 1\nerr 2\n");
  EXPECT_THAT(Log(9, 2), HasSubstr("(appended to)"));

  // No error file: stderr goes with stdout.
  request.error_path.clear();
  MustStart(ex, 10, 1, request);
  PollUntilExit(ex);
  EXPECT_EQ(ReadFileIfPresent(work + "/out_10.txt").value_or("<none>"), "out 1\nerr 1\n");
  EXPECT_THAT(Log(10, 1), HasSubstr("stdout goes to " + work + "/out_10.txt, stderr with it"));

  // A file that cannot be opened: the run fails at once, and says so.
  request.output_path = "missing/out.txt";
  MustStart(ex, 11, 1, request);
  const ExitStatus failed = PollUntilExit(ex).back().exit;
  EXPECT_EQ(failed.code, 127);
  EXPECT_THAT(failed.error, HasSubstr("cannot open the output file '" + work +
                                      "/missing/out.txt': No such file or directory"));
  EXPECT_THAT(Log(11, 1), HasSubstr("cannot open the output file"));
}

// A root daemon's run opens its files as the job's account: never where that account may not
// write, and what it makes is that account's.
TEST_F(LocalExecutorTest, OpensOutputFilesAsTheJobsAccount) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (runs a job as nobody)";
  Result<UnixAccount> nobody = AccountNamed("nobody");
  if (!nobody.ok()) GTEST_SKIP() << "no account 'nobody'";
  char tmpl[] = "/tmp/squeeze-exec-output-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string work = tmpl;
  ASSERT_EQ(chmod(work.c_str(), 0755), 0);  // nobody enters it but may not write in it
  const std::string theirs = work + "/theirs";
  ASSERT_EQ(mkdir(theirs.c_str(), 0700), 0);
  ASSERT_EQ(chown(theirs.c_str(), nobody->uid, nobody->gid), 0);
  JobRequest request = Request({"sh", "-c", "echo hi"});
  request.run_as = "nobody";
  request.workdir = work;
  request.output_path = "root_owned_%j.txt";
  LocalExecutor ex(Options());
  MustStart(ex, 12, 1, request);
  const ExitStatus refused = PollUntilExit(ex).back().exit;
  EXPECT_EQ(refused.code, 127);
  EXPECT_THAT(refused.error, HasSubstr("as user 'nobody': Permission denied"));
  struct stat st;
  EXPECT_NE(stat((work + "/root_owned_12.txt").c_str(), &st), 0);

  request.output_path = "theirs/%u_%j.txt";
  MustStart(ex, 13, 1, request);
  EXPECT_EQ(PollUntilExit(ex).back().exit, (ExitStatus{false, 0, ""}));
  const std::string made = theirs + "/nobody_13.txt";
  ASSERT_EQ(stat(made.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody->uid);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // the account's umask 077
  EXPECT_EQ(ReadFileIfPresent(made).value_or("<none>"), "hi\n");
  EXPECT_EQ(system(("rm -rf '" + work + "'").c_str()), 0);
}

TEST_F(LocalExecutorTest, PassesGpusAndProtocolEnvironment) {
  LocalExecutor ex(Options());
  setenv("SQUEEZE_EXEC_TEST_DAEMON_VAR", "from-daemon", 1);
  MustStart(ex, 42, 3, Request({"env"}, {{"MY_VAR", "x y"}}), {2, 5}, true);
  PollUntilExit(ex);
  std::string log = Log(42, 3);
  EXPECT_THAT(log, HasSubstr("\nCUDA_VISIBLE_DEVICES=2,5\n"));
  EXPECT_THAT(log, HasSubstr("\nSQUEEZE_JOB_ID=42\n"));
  EXPECT_THAT(log, HasSubstr("\nSQUEEZE_ATTEMPT=3\n"));
  EXPECT_THAT(log, HasSubstr("\nSQUEEZE_CHECKPOINT_DIR=" + dir_ + "/checkpoints/42\n"));
  EXPECT_THAT(log, HasSubstr("\nSQUEEZE_RESUME=1\n"));
  EXPECT_THAT(log, HasSubstr("\nMY_VAR=x y\n"));
  EXPECT_THAT(log, HasSubstr("\nSQUEEZE_EXEC_TEST_DAEMON_VAR=from-daemon\n"));

  MustStart(ex, 43, 1, Request({"env"}), {}, false);
  PollUntilExit(ex);
  EXPECT_THAT(Log(43, 1), Not(HasSubstr("SQUEEZE_RESUME")));
}

// A Slurm batch script runs on a local pool as under sbatch: the SLURM_* it reads, PyTorch's
// launcher variables with a port nothing holds, and an srun that starts its tasks here.
TEST_F(LocalExecutorTest, ABatchScriptFindsSlurmsVariablesAndAnSrunOnThisNode) {
  LocalExecutor ex(Options());
  JobRequest r = Request(
      {"bash", "-c",
       "echo id=$SLURM_JOB_ID name=$SLURM_JOB_NAME nodes=$SLURM_JOB_NODELIST/$SLURM_NNODES "
       "tasks=$SLURM_NTASKS cpt=$SLURM_CPUS_PER_TASK dir=$SLURM_SUBMIT_DIR "
       "gpus=$SLURM_GPUS_ON_NODE port=$SQUEEZE_MASTER_PORT/$MASTER_PORT/$PET_MASTER_PORT "
       "first=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1); "
       "srun bash -c 'echo task $SLURM_PROCID of $SLURM_NTASKS local $SLURM_LOCALID' | sort; "
       "srun -n 3 --kill-on-bad-exit=1 -l bash -c 'exit $SLURM_PROCID'; echo srun=$?"});
  r.spec.name = "train";
  r.tasks = 2;
  r.spec.cpu_milli = 8000;
  r.workdir = dir_;
  // A port some other process listens on is not given again.
  const int taken_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(20000 + 44);
  ASSERT_EQ(bind(taken_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(taken_fd, 1), 0);
  EXPECT_EQ(FreeMasterPort(44), 20045);
  MustStart(ex, 44, 1, r, {0, 1}, false);
  PollUntilExit(ex);
  close(taken_fd);
  const std::string log = Log(44, 1);
  const std::string node = ShortHostName();
  EXPECT_THAT(log, HasSubstr("id=44 name=train nodes=" + node + "/1 tasks=2 cpt=4 dir=" + dir_ +
                             " gpus=2 port=20045/20045/20045 first=" + node + "\n"));
  EXPECT_THAT(log, HasSubstr("task 0 of 2 local 0\ntask 1 of 2 local 1\n"));
  EXPECT_THAT(log, HasSubstr("srun=1\n"));  // the first task that failed: task 1's exit 1
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/bin/srun"));
}

TEST_F(LocalExecutorTest, NoDescriptorOfTheDaemonReachesTheJob) {
  // As a library might (cpp-httplib's accepted sockets have no O_CLOEXEC): an inheritable fd.
  int fd = open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(dup2(fd, 100), 100);
  LocalExecutor ex(Options());
  // No pipe in the shell (its ends would show while ls lists them), and no exec of ls (whose
  // own listing descriptor would show): the shell's descriptors alone.
  MustStart(ex, 5, 1, Request({"sh", "-c", "ls /proc/$$/fd; true"}));
  PollUntilExit(ex);
  close(100);
  close(fd);
  EXPECT_THAT(Log(5, 1), ::testing::StartsWith("0\n1\n2\nsqueeze-supervisor: job 5"));
}

TEST_F(LocalExecutorTest, RunsArgvWithoutAShell) {
  LocalExecutor ex(Options());
  MustStart(ex, 2, 1, Request({"printf", "[%s]\\n", "a b", "'q' \"d\"", "$HOME", "*", "; ls"}));
  PollUntilExit(ex);
  EXPECT_THAT(Log(2, 1), HasSubstr("[a b]\n['q' \"d\"]\n[$HOME]\n[*]\n[; ls]\n"));
}

TEST_F(LocalExecutorTest, MissingCommandExits127WithTheReason) {
  LocalExecutor ex(Options());
  MustStart(ex, 3, 1, Request({"/nonexistent/squeeze-no-such-command", "x"}));
  std::vector<ExecEvent> events = PollUntilExit(ex);
  EXPECT_EQ(events.back().exit.code, 127);
  EXPECT_FALSE(events.back().exit.signaled);
  EXPECT_THAT(events.back().exit.error,
              HasSubstr("cannot run '/nonexistent/squeeze-no-such-command': No such file"));
  EXPECT_EQ(events.back().exit.step, "exec");
  EXPECT_THAT(Log(3, 1), HasSubstr("cannot run '/nonexistent/squeeze-no-such-command'"));
}

TEST_F(LocalExecutorTest, ReportsEachCompletedCheckpointOnce) {
  LocalExecutor ex(Options());
  std::string script =
      "n=0; trap 'n=$((n+1)); echo $n > \"$SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp\";"
      " mv \"$SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp\" \"$SQUEEZE_CHECKPOINT_DIR/COMPLETE\"' USR1;"
      " touch \"$SQUEEZE_CHECKPOINT_DIR/ready\"; while true; do sleep 0.05; done";
  MustStart(ex, 4, 1, Request({"bash", "-c", script}));
  ASSERT_TRUE(WaitForFile(CheckpointDir(4) + "/ready"));
  auto is_checkpoint = [](const ExecEvent& e) { return e.kind == Kind::kCheckpoint; };
  ASSERT_TRUE(ex.RequestCheckpoint(4).ok());
  std::vector<ExecEvent> first = PollUntil(ex, 0, is_checkpoint);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].checkpoint, "1");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(ex.Poll(0).empty());
  ASSERT_TRUE(ex.RequestCheckpoint(4).ok());
  std::vector<ExecEvent> second = PollUntil(ex, 0, is_checkpoint);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].checkpoint, "2");

  ASSERT_TRUE(ex.Stop(4, 0, 30 * kSecond).ok());
  std::vector<ExecEvent> end = PollUntilExit(ex);
  EXPECT_EQ(end.back().exit, (ExitStatus{true, SIGTERM, ""}));
}

TEST_F(LocalExecutorTest, StopSendsSigtermThenSigkillAfterTheGrace) {
  LocalExecutor ex(Options());
  MustStart(ex, 5, 1,
            Request({"bash", "-c",
                     "trap '' TERM; touch \"$SQUEEZE_CHECKPOINT_DIR/ready\";"
                     " while true; do sleep 0.05; done"}));
  ASSERT_TRUE(WaitForFile(CheckpointDir(5) + "/ready"));
  ASSERT_TRUE(ex.Stop(5, 100 * kSecond, 5 * kSecond).ok());
  for (int i = 0; i < 30; ++i) {
    EXPECT_TRUE(ex.Poll(104 * kSecond).empty());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<ExecEvent> end = PollUntilExit(ex, 105 * kSecond);
  EXPECT_EQ(end.back().exit, (ExitStatus{true, SIGKILL, ""}));
}

TEST_F(LocalExecutorTest, SupervisorOutlivesTheProcessThatStartedIt) {
  std::string go = CheckpointDir(6) + "/go";
  started_.push_back(6);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LocalExecutor first(Options());
    Result<RunInfo> run = first.Start(
        6, 1, Request({"sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.05; done; exit 5", go}), {},
        false);
    _exit(run.ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  LocalExecutor second(Options());
  RunInfo run = ReattachOne(second);
  EXPECT_EQ(run.id, 6);
  EXPECT_FALSE(run.exit.has_value());
  EXPECT_TRUE(second.IsRunning(6));
  EXPECT_TRUE(second.Poll(0).empty());
  ASSERT_TRUE(WriteFileAtomically(go, "").ok());
  std::vector<ExecEvent> end = PollUntilExit(second);
  EXPECT_EQ(end.back().id, 6);
  EXPECT_EQ(end.back().exit, (ExitStatus{false, 5, ""}));
}

TEST_F(LocalExecutorTest, ReattachReportsARunThatEndedWhileNoDaemonWasAround) {
  {
    LocalExecutor first(Options());
    MustStart(first, 7, 2, Request({"sh", "-c", "exit 4"}));
  }
  ASSERT_TRUE(WaitForFile(PathsOf(dir_, 7, 2).exit));
  LocalExecutor second(Options());
  RunInfo run = ReattachOne(second);
  EXPECT_EQ(run.id, 7);
  EXPECT_EQ(run.attempt, 2);
  EXPECT_EQ(run.exit, (ExitStatus{false, 4, ""}));
  EXPECT_FALSE(second.IsRunning(7));
  EXPECT_TRUE(second.Poll(0).empty());
}

TEST_F(LocalExecutorTest, MissingSupervisorIsAnError) {
  ExecutorOptions options = Options();
  options.supervisor_path = "/nonexistent/squeeze-supervisor";
  LocalExecutor ex(options);
  Result<RunInfo> run = ex.Start(9, 1, Request({"true"}), RunPlace{}, false);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("cannot start the supervisor"));
  EXPECT_FALSE(ex.IsRunning(9));
}

TEST_F(LocalExecutorTest, TrainLikeExampleResumesFromItsCheckpoint) {
  LocalExecutor ex(Options());
  std::string script = std::string(SQUEEZE_SOURCE_DIR) + "/examples/jobs/train-like.sh";
  std::map<std::string, std::string> env = {
      {"STEPS", "1000"}, {"STEP_SECONDS", "0.02"}, {"CHECKPOINT_EVERY", "1000"}};
  MustStart(ex, 8, 1, Request({script}, env));
  for (int i = 0; i < 500 && Log(8, 1).find("step 5/") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_THAT(Log(8, 1), HasSubstr("step 5/1000"));
  ASSERT_TRUE(ex.RequestCheckpoint(8).ok());
  std::vector<ExecEvent> events = PollUntilExit(ex);
  ASSERT_EQ(events.size(), 2u);
  ASSERT_EQ(events[0].kind, Kind::kCheckpoint);
  int saved = std::stoi(events[0].checkpoint);
  EXPECT_GE(saved, 5);
  EXPECT_EQ(events[1].exit, (ExitStatus{false, 0, ""}));

  env["STEPS"] = std::to_string(saved + 3);
  MustStart(ex, 8, 2, Request({script}, env), {}, true);
  events = PollUntilExit(ex);
  EXPECT_EQ(events.back().exit, (ExitStatus{false, 0, ""}));
  std::string log = Log(8, 2);
  EXPECT_THAT(log, HasSubstr("resuming from step " + std::to_string(saved) + " "));
  EXPECT_THAT(log, HasSubstr("step " + std::to_string(saved + 1) + "/"));
  EXPECT_THAT(log, Not(HasSubstr("step 1/")));
  EXPECT_EQ(events[0].checkpoint, std::to_string(saved + 3));
}

}  // namespace
}  // namespace squeeze
