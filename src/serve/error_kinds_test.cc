#include "serve/error_kinds.h"

#include <gtest/gtest.h>

#include "serve/http_message.h"
#include "serve/job_service.h"

namespace squeeze {
namespace {

TEST(ErrorKindsTest, EachKindGoesToItsStatusAndBack) {
  for (ErrorKind k : {ErrorKind::kInvalid, ErrorKind::kNotFound, ErrorKind::kConflict,
                      ErrorKind::kPermission, ErrorKind::kUnavailable, ErrorKind::kIo}) {
    EXPECT_EQ(ErrorKindOfHttpStatus(HttpStatusOf(k)), k) << ErrorKindName(k);
  }
  EXPECT_EQ(HttpStatusOf(ErrorKind::kNotFound), 404);
  EXPECT_EQ(HttpStatusOf(ErrorKind::kInternal), 500);
}

TEST(ErrorKindsTest, StatusesTheServerAnswersWithoutAKindReadAsTheirClass) {
  EXPECT_EQ(ErrorKindOfHttpStatus(401), ErrorKind::kPermission);
  EXPECT_EQ(ErrorKindOfHttpStatus(413), ErrorKind::kInvalid);
  EXPECT_EQ(ErrorKindOfHttpStatus(431), ErrorKind::kInvalid);
  EXPECT_EQ(ErrorKindOfHttpStatus(502), ErrorKind::kIo);
}

TEST(ErrorKindsTest, AFailedStatusBecomesAnApiErrorOfItsKind) {
  const ApiResult r = ApiResult::Fail(Status::NotFound("there is no job 9"));
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->http_status, 404);
  EXPECT_EQ(r.error->message, "there is no job 9");
  EXPECT_EQ(ApiResult::Fail(Status::Io("disk I/O error")).error->http_status, 500);
}

TEST(ErrorKindsTest, AnErrorBodyNamesItsKind) {
  const HttpResponse r = JsonError(409, "job 3 already ended");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("\"kind\":\"conflict\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"error\":\"job 3 already ended\""), std::string::npos) << r.body;
}

}  // namespace
}  // namespace squeeze
