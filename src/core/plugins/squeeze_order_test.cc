#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/pod_builders.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// squeeze's placement: FGD's score first; among FGD's best nodes the one whose waste grows
// least, waste = .5 FGD fragmentation + .5 stream waste (free milli minus what a stream of the
// shape could still fill), summed over every shape of the history with weights
// p x ((room when empty + 1) / (room now + 1))^3; scored floor(100 sigmoid(-growth / 1000)).

// Two 1-GPU nodes, a0 {1000} and a1 {810}; history: 500-milli pods only; a 200-milli pod.
//   FGD:   a0 -> {800}: F 0 -> 0 (800 >= 500): 50;  a1 -> {610}: 0 -> 0: 50. Tie: FGD takes a0.
//   waste: a0: stream 1000 - 2*500 = 0 -> 800 - 500 = 300: growth .5*300 = 150 -> 46.26 -> 46
//          a1: stream 810 - 500 = 310 -> 610 - 500 = 110: growth -100 -> 52.50 -> 52
// The pod goes where a 500 pod could not have used the room anyway.
OrderCluster WholeAnd810() {
  OrderCluster c(Cluster({{"a", 2, 1, "V100"}}));
  c.Take(1, {0}, 190);
  return c;
}

// Where FGD and squeeze, each given `history`, put `pod` when it arrives.
std::pair<std::string, std::string> FgdAndSqueeze(const OrderCluster& c,
                                                  const std::vector<PodSpec>& history,
                                                  const JobSpec& pod) {
  FgdOrder fgd;
  fgd.SetWorkloadHistory(history);
  fgd.ObserveArrival(pod, c.state());
  SqueezePlacementOrder order;
  order.SetWorkloadHistory(history);
  order.ObserveArrival(pod, c.state());
  return {c.Place(fgd, pod), c.Place(order, pod)};
}

TEST(SqueezeOrderTest, WasteBreaksFgdTiesAgainstRank) {
  EXPECT_EQ(FgdAndSqueeze(WholeAnd810(), {Pod(0, 500, 1)}, NewJob(1, 1).Milli(200)),
            std::make_pair(std::string("a0:0 milli=200"), std::string("a1:0 milli=200")));
}

TEST(SqueezeOrderTest, ShapesLearnedFromArrivals) {
  OrderCluster c = WholeAnd810();
  SqueezePlacementOrder order;
  const JobSpec pod = NewJob(1, 1).Milli(200);
  EXPECT_EQ(c.Place(order, pod), "a0:0 milli=200");  // no shapes yet: FGD without a target
  order.ObserveArrival(NewJob(2, 1).Milli(500), c.state());
  EXPECT_EQ(c.Place(order, pod), "a1:0 milli=200");
}

// After the pod on a1 ({610}), the next 200-milli pod: FGD a1 -> {410}: F 0 -> 410, 39 < 50.
TEST(SqueezeOrderTest, AnswersFollowTheNodes) {
  OrderCluster c = WholeAnd810();
  SqueezePlacementOrder order;
  order.SetWorkloadHistory({Pod(0, 500, 1)});
  const JobSpec pod = NewJob(1, 1).Milli(200);
  EXPECT_EQ(c.PlaceAndTake(order, pod), "a1:0 milli=200");
  EXPECT_EQ(c.PlaceAndTake(order, pod), "a0:0 milli=200");
}

// Five 2-GPU nodes: a0 free, the only node with room for a 2-GPU pod; a1 {1000, 0}; a2..a4
// {300, 300}. History: 99 pods of 300 milli and 1 of 2 whole GPUs (FGD's target is the 300s).
// An 810-milli pod fits a0 and a1 only; FGD: {190, 1000} and {190, 0} both F 0 -> 190: 45.
// Room when empty: 300s 6 a node = 30, pairs 5; now: 300s 6 + 3 + 3*2 = 15, pairs 1.
// Weights: .99 (31/16)^3 = 7.2005 and .01 (6/2)^3 = .27, i.e. .9639 and .0361.
// Waste growth (.5 frag + .5 stream), per shape:
//   a0 -> {190, 1000}: 300s: frag 0 -> 190, stream 200 -> 290: +140; pairs: 0 -> 1190: +1190
//   a1 -> {190, 0}:    300s: frag 0 -> 190, stream 100 -> 190: +140; pairs: 1000 -> 190: -810
// Weighted: a0 .9639*140 + .0361*1190 = 177.9 -> 45.56 -> 45; a1 134.9 - 29.3 = 105.7 -> 47.36
// -> 47: a1, and a0 stays free for the pair. By p alone: a0 138.6 + 11.9 = 150.5 -> 46.24 and
// a1 138.6 - 8.1 = 130.5 -> 46.74, both 46: the rank would give a0.
OrderCluster OnePairLeft() {
  OrderCluster c(Cluster({{"a", 5, 2, "V100"}}));
  c.Take(1, {1});
  for (int n = 2; n < 5; ++n) c.Take(n, {0, 1}, 700);
  return c;
}

std::vector<PodSpec> MostlySmallRarelyPairs() {
  std::vector<PodSpec> history(99, Pod(0, 300, 1));
  history.push_back(Pod(0, 1000, 2));
  return history;
}

TEST(SqueezeOrderTest, ScarcityKeepsTheOnlyNodeForARareBigShapeFree) {
  const OrderCluster c = OnePairLeft();
  const JobSpec pod = NewJob(1, 1).Milli(810);
  EXPECT_EQ(FgdAndSqueeze(c, MostlySmallRarelyPairs(), pod),
            std::make_pair(std::string("a0:0 milli=810"), std::string("a1:0 milli=810")));
  SqueezePlacementOrder order;
  order.SetWorkloadHistory(MostlySmallRarelyPairs());
  order.ObserveArrival(pod, c.state());
  const std::unordered_map<int, int> a1_capped = {{1, 0}};
  EXPECT_EQ(c.Place(order, pod, &a1_capped), "a0:0 milli=810");
}

// The weights are refreshed every 200 arrivals, the first included, from the cluster as it is
// at the arrival. Weighed first on the empty cluster (scarcity 1: weights = p), the order keeps
// p until its 200th arrival after; queries in between (1000 per arrival here, as trial
// placements and the fragmentation meter ask) refresh nothing.
TEST(SqueezeOrderTest, ScarcityWeightsRefreshEvery200ArrivalsNeverInAQuery) {
  OrderCluster c = OnePairLeft();
  const OrderCluster empty(Cluster({{"a", 5, 2, "V100"}}));
  const JobSpec pod = NewJob(1, 1).Milli(810);
  SqueezePlacementOrder order;
  order.SetWorkloadHistory(MostlySmallRarelyPairs());
  order.ObserveArrival(pod, empty.state());  // arrival 0: weighed here
  for (int i = 1; i < 200; ++i) {
    order.ObserveArrival(pod, c.state());
    for (int q = 0; q < (i == 1 ? 1000 : 1); ++q) {
      ASSERT_EQ(c.Place(order, pod), "a0:0 milli=810") << "arrival " << i << ", query " << q;
    }
  }
  order.ObserveArrival(pod, c.state());  // arrival 200: weighed again, on c
  EXPECT_EQ(c.Place(order, pod), "a1:0 milli=810");
}

TEST(SqueezeOrderTest, GangBiggerThanAnyNodeGoesAcrossNodes) {
  OrderCluster c(Cluster({{"a", 3, 2, "V100"}}));
  c.Take(0, {0});
  SqueezePlacementOrder order;
  order.SetWorkloadHistory(MostlySmallRarelyPairs());
  EXPECT_EQ(c.Place(order, NewJob(1, 3)), "a1:0,1 a2:0");
}

}  // namespace
}  // namespace squeeze::testing
