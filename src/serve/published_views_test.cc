#include "serve/published_views.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace squeeze {
namespace {

std::shared_ptr<ReadView> ViewOf(PublishedViews& views, bool with_why) {
  auto view = std::make_shared<ReadView>();
  view->generation = views.NextGeneration();
  view->nodes = nlohmann::json{{"generation", view->generation}};
  if (with_why) view->why = std::make_shared<const WhyView>();
  return view;
}

TEST(PublishedViewsTest, NothingBeforeTheFirstPublicationThenTheLatest) {
  PublishedViews views;
  EXPECT_EQ(views.Latest(), nullptr);
  views.Publish(ViewOf(views, false));
  views.Publish(ViewOf(views, false));
  ASSERT_NE(views.Latest(), nullptr);
  EXPECT_EQ(views.Latest()->generation, 2u);
  EXPECT_EQ(views.Latest()->nodes["generation"], 2);
}

TEST(PublishedViewsTest, AViewWithoutWhyKeepsTheLatestWhy) {
  PublishedViews views;
  views.Publish(ViewOf(views, true));
  const std::shared_ptr<const WhyView> why = views.Latest()->why;
  ASSERT_NE(why, nullptr);
  views.Publish(ViewOf(views, false));
  EXPECT_EQ(views.Latest()->generation, 2u);
  EXPECT_EQ(views.Latest()->why, why);  // of an earlier generation, kept
  views.Publish(ViewOf(views, true));
  EXPECT_NE(views.Latest()->why, why);
}

TEST(PublishedViewsTest, AWhyAskedMakesTheNextPublicationsCarryCopies) {
  PublishedViews views;
  EXPECT_FALSE(views.WantsWhy());
  views.AskedWhy();
  int wanted = 0;
  while (views.WantsWhy()) ++wanted;
  EXPECT_EQ(wanted, PublishedViews::kWhyInterestPublications);
  views.AskedWhy();
  EXPECT_TRUE(views.WantsWhy());
}

TEST(PublishedViewsTest, AReaderKeepsItsViewWhilePublicationsFollow) {
  PublishedViews views;
  views.Publish(ViewOf(views, false));
  std::vector<std::thread> readers;
  std::atomic<bool> stale{false};
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      uint64_t last = 0;
      for (int i = 0; i < 2000; ++i) {
        const std::shared_ptr<const ReadView> view = views.Latest();
        // A reader never sees a generation go back, and its view stays whole.
        if (view->generation < last || view->nodes["generation"] != view->generation) stale = true;
        last = view->generation;
      }
    });
  }
  for (int i = 0; i < 2000; ++i) views.Publish(ViewOf(views, i % 3 == 0));
  for (std::thread& t : readers) t.join();
  EXPECT_FALSE(stale.load());
  EXPECT_EQ(views.Latest()->generation, 2001u);
}

}  // namespace
}  // namespace squeeze
