//===- DataLoaderRangesTest.cpp - What counts as a data-loader range ------===//
//
// TraceIndex::isDataLoaderRange: the host ranges of the input pipeline
// (the name class data-loader) that D001 and the critical path read.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using model::EventKind;

namespace {

TEST(DataLoaderRanges, RecognisesLoaderRanges) {
  TraceMaker M;
  M.add(M.Host, EventKind::Annotation,
        "enumerate(DataPipe)#ShardingFilterIterDataPipe", 0, 10);
  M.add(M.Host, EventKind::Python,
        "torch/utils/data/dataloader.py(631): __next__", 20, 30);
  M.add(M.Host, EventKind::Python,
        "torch/utils/data/dataloader.py(419): _get_iterator", 40, 50);
  M.add(M.Host, EventKind::Op, "aten::add", 60, 70);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  std::vector<bool> Is;
  for (const model::Event &E : T.events(T.Lanes[0]))
    Is.push_back(Ctx.isDataLoaderRange(E));
  EXPECT_EQ(Is, (std::vector<bool>{true, true, false, false}));
}

} // namespace
