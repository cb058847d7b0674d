#include "core/job_shape.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

Job JobOf(int gpus, int home_pool = -1, const std::string& team = "", bool preemptible = false) {
  Job job;
  job.spec.gpus = gpus;
  job.spec.team = team;
  job.spec.preemptible = preemptible;
  job.home_pool = home_pool;
  return job;
}

TEST(JobShapeTest, JobsAlikeShareAShape) {
  JobShapes shapes;
  const int a = shapes.Intern(JobOf(1), 2);
  EXPECT_EQ(shapes.Intern(JobOf(1), 2), a);
  EXPECT_NE(shapes.Intern(JobOf(2), 2), a);
  EXPECT_NE(shapes.Intern(JobOf(1, 0), 0), a);
  EXPECT_NE(shapes.Intern(JobOf(1, -1, "vision"), 2), a);
  EXPECT_NE(shapes.Intern(JobOf(1, -1, "", true), 2), a);
  Job timed = JobOf(1);
  timed.spec.time_limit = kHour;
  EXPECT_NE(shapes.Intern(timed, 2), a);
  EXPECT_TRUE(shapes.at(shapes.Intern(timed, 2)).timed);
  Job half = JobOf(1);
  half.spec.gpu_milli = 500;
  const int h = shapes.Intern(half, 2);
  EXPECT_NE(h, a);
  EXPECT_EQ(shapes.size(), 7u);
  const JobShape& shape = shapes.at(h);
  EXPECT_EQ(shape.scope, 2);
  EXPECT_EQ(shape.gpu_milli, 500);
  const Job example = shape.Example();
  EXPECT_EQ(shapes.example(h).spec.TotalMilli(), 500);  // made once, kept
  EXPECT_EQ(example.spec.TotalMilli(), 500);
  EXPECT_EQ(example.home_pool, -1);
}

TEST(JobShapeTest, JobsThatStateMoreHaveNone) {
  JobShapes shapes;
  Job models = JobOf(1);
  models.spec.gpu_models = {"A100"};
  Job cpu = JobOf(1);
  cpu.spec.cpu_milli = 4000;
  Job memory = JobOf(1);
  memory.spec.memory_mib = 1024;
  Job gpu_memory = JobOf(1);
  gpu_memory.spec.min_gpu_memory_mib = 40000;
  Job regions = JobOf(1);
  regions.spec.regions = {"eu"};
  for (const Job& job : {models, cpu, memory, gpu_memory, regions}) {
    EXPECT_EQ(shapes.Intern(job, 0), JobShapes::kNone);
  }
  EXPECT_EQ(shapes.size(), 0u);
}

}  // namespace
}  // namespace squeeze
