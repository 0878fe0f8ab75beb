// ConnectionTable's choice of the connection to close at the limit.
#include "http/connection_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace rayagg {
namespace {

using Wait = ConnectionTable::Wait;

TEST(ConnectionTableTest, NothingToChooseWhenNoConnectionWaits) {
  ConnectionTable table;
  table.Add(1, nullptr);
  EXPECT_FALSE(table.TakeOldestWaiting().has_value());
  table.BeginWait(1, Wait::kIdle);
  table.EndWait(1);
  EXPECT_FALSE(table.TakeOldestWaiting().has_value());
}

TEST(ConnectionTableTest, OldestIdleFirstThenOldestInRequest) {
  ConnectionTable table;
  for (uint64_t id = 1; id <= 4; ++id) table.Add(id, nullptr);
  table.BeginWait(1, Wait::kRequest);  // oldest of all, but in a request
  table.BeginWait(2, Wait::kIdle);
  table.BeginWait(3, Wait::kIdle);
  table.BeginWait(4, Wait::kRequest);
  EXPECT_EQ(table.idle(), 2u);
  EXPECT_EQ(table.in_request(), 2u);

  std::vector<uint64_t> chosen;
  while (auto victim = table.TakeOldestWaiting()) chosen.push_back(victim->id);
  EXPECT_EQ(chosen, (std::vector<uint64_t>{2, 3, 1, 4}));
  EXPECT_EQ(table.idle(), 0u);
}

TEST(ConnectionTableTest, ANewWaitIsYoungerThanEveryEarlierOne) {
  ConnectionTable table;
  table.Add(1, nullptr);
  table.Add(2, nullptr);
  table.BeginWait(1, Wait::kIdle);
  table.BeginWait(2, Wait::kIdle);
  table.BeginWait(1, Wait::kIdle);  // 1 got a request, answered it, waits again
  EXPECT_EQ(table.idle(), 2u);
  EXPECT_EQ(table.TakeOldestWaiting()->id, 2u);
}

TEST(ConnectionTableTest, AVictimThatMovedOnIsNoLongerWaiting) {
  ConnectionTable table;
  table.Add(1, nullptr);
  table.BeginWait(1, Wait::kIdle);
  const auto victim = table.TakeOldestWaiting();
  ASSERT_TRUE(victim.has_value());
  EXPECT_TRUE(table.IsStillWaiting(*victim));
  table.EndWait(1);  // the request arrived before the close ran
  EXPECT_FALSE(table.IsStillWaiting(*victim));
  table.BeginWait(1, Wait::kRequest);
  EXPECT_FALSE(table.IsStillWaiting(*victim));  // a later wait is another one
  table.Remove(1);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.in_request(), 0u);
  EXPECT_FALSE(table.IsStillWaiting(*victim));
}

}  // namespace
}  // namespace rayagg
