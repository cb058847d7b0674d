#include "core/status.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(StatusTest, AnErrorKeepsItsKindThroughContext) {
  const Status s = Status::NotFound("there is no job 7").WithContext("cancel");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(s.message(), "cancel: there is no job 7");
  EXPECT_EQ(Status::Io("disk full").WithContext("store").kind(), ErrorKind::kIo);
}

TEST(StatusTest, PlainErrorsAreInvalidInput) {
  EXPECT_EQ(Status::Error("gpus: 'x' is not a number").kind(), ErrorKind::kInvalid);
  EXPECT_EQ(Status::Error(ErrorKind::kConflict, "already ended").kind(), ErrorKind::kConflict);
}

TEST(StatusTest, AResultCarriesTheKindOfItsError) {
  Result<int> r = Status::PermissionDenied("only an admin");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kPermission);
}

TEST(StatusTest, EveryKindHasAName) {
  for (ErrorKind k : {ErrorKind::kInvalid, ErrorKind::kNotFound, ErrorKind::kConflict,
                      ErrorKind::kPermission, ErrorKind::kIo, ErrorKind::kUnavailable,
                      ErrorKind::kInternal}) {
    EXPECT_STRNE(ErrorKindName(k), "") << static_cast<int>(k);
  }
  EXPECT_STREQ(ErrorKindName(ErrorKind::kNotFound), "not found");
}

}  // namespace
}  // namespace squeeze
