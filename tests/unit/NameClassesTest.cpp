//===- NameClassesTest.cpp - What names say an event is -------------------===//
#include "model/NameClasses.h"
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using model::NameClass;
using model::NameClassifier;

namespace {

bool is(llvm::StringRef Name, NameClass C) {
  return NameClassifier::builtin()->matches(Name, C);
}

TEST(NameClasses, CatalogueIsInEnumOrderWithUniqueKeys) {
  llvm::ArrayRef<model::NameClassInfo> All = model::nameClassCatalogue();
  ASSERT_EQ(All.size(), model::NumNameClasses);
  std::set<std::string> Keys;
  for (unsigned I = 0; I < All.size(); ++I) {
    EXPECT_EQ(unsigned(All[I].Class), I);
    EXPECT_TRUE(Keys.insert(All[I].Key.str()).second) << All[I].Key.str();
    EXPECT_FALSE(All[I].Include.empty()) << All[I].Key.str();
    EXPECT_EQ(model::parseNameClass(All[I].Key), All[I].Class);
  }
  EXPECT_FALSE(model::parseNameClass("no-such-class"));
}

TEST(NameClasses, AlternativesExpandEveryGroup) {
  EXPECT_EQ(model::expandAlternatives("{cuda,hip}Free{,_v2}"),
            (std::vector<std::string>{"cudaFree", "hipFree", "cudaFree_v2",
                                      "hipFree_v2"}));
  EXPECT_EQ(model::expandAlternatives("plain*"),
            (std::vector<std::string>{"plain*"}));
  // An unclosed brace is literal.
  EXPECT_EQ(model::expandAlternatives("a{b"),
            (std::vector<std::string>{"a{b"}));
}

TEST(NameClasses, DataLoaderRanges) {
  EXPECT_TRUE(is("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                 NameClass::DataLoader));
  // The DataPipe form, which the critical path once did not count.
  EXPECT_TRUE(
      is("enumerate(DataPipe)#MapperIterDataPipe", NameClass::DataLoader));
  EXPECT_TRUE(is("torch/utils/data/dataloader.py(631): __next__",
                 NameClass::DataLoader));
  EXPECT_FALSE(is("torch/utils/data/dataloader.py(419): _get_iterator",
                  NameClass::DataLoader));
  EXPECT_FALSE(is("MyDataLoaderThing", NameClass::DataLoader));
}

TEST(NameClasses, CommunicationKernelsIgnoreCaseAndAVoidPrefix) {
  for (llvm::StringRef N :
       {"ncclKernel_AllReduce_RING_LL_Sum_float",
        "void ncclDevKernel_AllGather_RING_LL(ncclDevComm*)", "NCCL_allreduce",
        "rcclKernel_x", "void at::foo<ncclKernel_x>(int)"})
    EXPECT_TRUE(is(N, NameClass::CommunicationKernel)) << N.str();
  EXPECT_FALSE(is("void gemm<float>(float *)", NameClass::CommunicationKernel));
  EXPECT_TRUE(is("nccl:all_reduce", NameClass::CommunicationRange));
}

// Communication that does not go through NCCL: expert-parallel dispatch
// and combine, NVSHMEM, and the custom all-reduce kernels of inference
// servers. K004 once advised more blocks for DeepEP kernels limited to 20
// SMs on purpose, and N001 then found no communication at all.
TEST(NameClasses, CommunicationKernelsBeyondNccl) {
  for (llvm::StringRef N :
       {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)",
        "void deep_ep::internode_ll::combine<false, 7168>(void*)",
        "void dpsk::ep::dispatch_kernel<4>(dpsk::ep::Args)",
        "nvshmemi_proxy_kernel", "void nvshmem_barrier_all_kernel()",
        "void nvshmemi_transfer_rma_kernel<int>(int*)",
        "mscclKernel_Sum_half_LL", "void mscclpp::allreduce7<float>(float*)",
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(void*)",
        "void sglang::cross_device_reduce_2stage<half, 4>(half*)",
        "custom_all_reduce_kernel",
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<half, 8>(void)",
        "void tensorrt_llm::kernels::twoShotAllReduceKernel<float>(void)",
        "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_"
        "oneshot_lamport<half>(void)",
        "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float>()",
        "void c10d::symmetric_memory::multimem_all_reduce_kernel<float>()",
        "void quickreduce::allreduce_prototype_twoshot<half>(half*)"})
    EXPECT_TRUE(is(N, NameClass::CommunicationKernel)) << N.str();
  // Compute that merely reduces is not communication.
  for (llvm::StringRef N :
       {"void at::native::reduce_kernel<512, 1>(float*)",
        "void cutlass::Kernel2<cutlass_80_tensorop_gemm>(Params)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4>()",
        "void deep_gemm::fp8_gemm_kernel<128>(float*)"})
    EXPECT_FALSE(is(N, NameClass::CommunicationKernel)) << N.str();
}

TEST(NameClasses, SynchronizationAndCopies) {
  for (llvm::StringRef N :
       {"cudaStreamSynchronize", "hipDeviceSynchronize", "cuCtxSynchronize_v2",
        "cudaEventSynchronize", "cudaThreadSynchronize"})
    EXPECT_TRUE(is(N, NameClass::SyncCall)) << N.str();
  EXPECT_FALSE(is("cudaStreamWaitEvent", NameClass::SyncCall));
  EXPECT_TRUE(is("cudaMemcpy", NameClass::BlockingCopyCall));
  EXPECT_TRUE(is("hipMemcpyWithStream", NameClass::BlockingCopyCall));
  EXPECT_TRUE(is("cuMemcpyDtoH_v2", NameClass::BlockingCopyCall));
  EXPECT_FALSE(is("cudaMemcpyAsync", NameClass::BlockingCopyCall));
  EXPECT_TRUE(is("cudaMemcpyAsync", NameClass::CopyCall));
  // Device copy kernels, which M001 and diff's device-copy-time read alike.
  EXPECT_TRUE(
      is("void at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)",
         NameClass::CopyKernel));
  EXPECT_TRUE(is("BatchedCopy", NameClass::CopyKernel));
  EXPECT_FALSE(is("void gemm<float>(float *)", NameClass::CopyKernel));
}

TEST(NameClasses, OneListOfOpsThatReadDeviceValues) {
  for (llvm::StringRef N :
       {"aten::item", "aten::_local_scalar_dense", "aten::nonzero",
        "aten::is_nonzero", "aten::masked_select", "aten::unique",
        "aten::_unique2", "aten::equal", "aten::tolist"})
    EXPECT_TRUE(is(N, NameClass::DeviceReadOp)) << N.str();
  EXPECT_FALSE(is("aten::add", NameClass::DeviceReadOp));
}

TEST(NameClasses, AllocatorAndStartupCalls) {
  EXPECT_TRUE(is("cudaMalloc", NameClass::AllocatorMalloc));
  EXPECT_TRUE(is("cuMemAlloc_v2", NameClass::AllocatorMalloc));
  EXPECT_TRUE(is("hipMallocAsync", NameClass::AllocatorMalloc));
  EXPECT_FALSE(is("cudaMallocHost", NameClass::AllocatorMalloc));
  EXPECT_TRUE(is("cudaFreeAsync", NameClass::AllocatorFree));
  EXPECT_TRUE(is("cudaMallocHost", NameClass::StartupAllocation));
  EXPECT_FALSE(is("cudaMallocAsync", NameClass::StartupAllocation));
  EXPECT_TRUE(is("cuModuleLoadData", NameClass::ContextSetup));
  EXPECT_TRUE(is("cuInit", NameClass::ContextSetup));
  EXPECT_TRUE(is("cudaStreamBeginCapture", NameClass::CaptureBegin));
  EXPECT_TRUE(is("cudaGraphInstantiateWithFlags", NameClass::GraphCapture));
}

TEST(NameClasses, CompilationIsNotTheCompiledCallsOfSteadyState) {
  EXPECT_TRUE(
      is("_compile.compile_inner (dynamo_timed)", NameClass::CompilationRange));
  EXPECT_TRUE(is("Inductor: codegen", NameClass::CompilationRange));
  EXPECT_FALSE(is("Torch-Compiled Region: 0/0", NameClass::CompilationRange));
  EXPECT_FALSE(is("triton_poi_fused_add_0", NameClass::CompilationRange));
  EXPECT_FALSE(is("TorchDynamo Cache Lookup", NameClass::CompilationRange));
  EXPECT_TRUE(is("torch/_inductor/codecache.py(12): load",
                 NameClass::CompilationFrame));
  EXPECT_FALSE(
      is("torch/_inductor/compile_fx.py(1): run", NameClass::CompilationFrame));
}

TEST(NameClasses, UserChangesAddAndExclude) {
  model::NameClassChanges C;
  C.Include[unsigned(NameClass::DataLoader)].push_back("MyLoader.next*");
  C.Exclude[unsigned(NameClass::CommunicationKernel)].push_back("nccl_fake_*");
  auto N = NameClassifier::create(C);
  ASSERT_TRUE(bool(N)) << llvm::toString(N.takeError());
  EXPECT_TRUE((*N)->matches("MyLoader.next()", NameClass::DataLoader));
  // The built-in patterns stay.
  EXPECT_TRUE((*N)->matches("enumerate(DataLoader)#x", NameClass::DataLoader));
  EXPECT_FALSE(
      (*N)->matches("nccl_fake_kernel", NameClass::CommunicationKernel));
  EXPECT_TRUE((*N)->matches("ncclKernel_x", NameClass::CommunicationKernel));
}

TEST(NameClasses, AnInvalidPatternNamesItsClass) {
  model::NameClassChanges C;
  C.Include[unsigned(NameClass::SyncCall)].push_back("[unclosed");
  auto N = NameClassifier::create(C);
  ASSERT_FALSE(bool(N));
  std::string Message = llvm::toString(N.takeError());
  EXPECT_NE(Message.find("sync-call"), std::string::npos) << Message;
  EXPECT_NE(Message.find("[unclosed"), std::string::npos) << Message;
}

TEST(NameClasses, TheIndexAnswersOncePerStringAndTheSame) {
  TraceMaker M;
  M.op("aten::item", 0, 10);
  M.op("aten::item", 20, 30);
  M.op("aten::add", 40, 50);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  for (const model::Event &E : T.events(T.Lanes[0]))
    for (int Twice = 0; Twice < 2; ++Twice)
      EXPECT_EQ(Ctx.is(E, NameClass::DeviceReadOp),
                is(T.name(E), NameClass::DeviceReadOp));
}

} // namespace
