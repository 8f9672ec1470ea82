//===- ElementwiseKernelNamesTest.cpp - Elementwise kernels by name -------===//
//
// Which kernels rules/detectors/KernelNames.h takes for per-tensor
// elementwise work (L003) and for eager elementwise compute (L005).
//
//===----------------------------------------------------------------------===//
#include "model/NameClasses.h"
#include "rules/detectors/KernelNames.h"

#include "gtest/gtest.h"

using namespace tracelint;

namespace {

const char *Gelu = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)>"
                   "(int, float*)";
const char *Mul = "void at::native::vectorized_elementwise_kernel<4, "
                  "at::native::binary_internal::MulFunctor<float>>(int)";
const char *Copy = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::direct_copy_kernel_cuda>(int)";

TEST(ElementwiseKernelNames, ElementwiseAndMultiTensorKernels) {
  using namespace rules::detect;
  EXPECT_TRUE(isElementwiseKernel(
      *model::NameClassifier::builtin(),
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::AddFunctor<float>, at::detail::Array<char*, 3>>"));
  EXPECT_TRUE(isElementwiseKernel(*model::NameClassifier::builtin(),
                                  "triton_poi_fused_gelu_mul_0"));
  EXPECT_FALSE(isElementwiseKernel(*model::NameClassifier::builtin(),
                                   "ampere_sgemm_128x64_nn"));
  EXPECT_FALSE(isElementwiseKernel(
      *model::NameClassifier::builtin(),
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
      "at::native::(anonymous namespace)::TensorListMetadata<2>>"));
  auto MultiTensor = [](llvm::StringRef Name) {
    return model::NameClassifier::builtin()->matches(
        Name, model::NameClass::MultiTensorKernel);
  };
  EXPECT_TRUE(MultiTensor("multi_tensor_apply_kernel"));
  EXPECT_TRUE(MultiTensor("void at::native::fused_adam_kernel"));
  EXPECT_TRUE(MultiTensor("FusedAdamKernel"));
  EXPECT_FALSE(MultiTensor("elementwise_kernel"));
}

TEST(ElementwiseKernelNames, EagerComputeKernelsOnly) {
  using rules::detect::isEagerElementwiseKernel;
  EXPECT_TRUE(
      isEagerElementwiseKernel(*model::NameClassifier::builtin(), Gelu));
  EXPECT_TRUE(isEagerElementwiseKernel(*model::NameClassifier::builtin(), Mul));
  EXPECT_TRUE(isEagerElementwiseKernel(
      *model::NameClassifier::builtin(),
      "void at::native::elementwise_kernel_manual_unroll<128, 8, "
      "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float>>>"));
  EXPECT_TRUE(
      isEagerElementwiseKernel(*model::NameClassifier::builtin(),
                               "void at::native::unrolled_elementwise_"
                               "kernel<at::native::MulScalarFunctor<float>>"));
  EXPECT_FALSE(
      isEagerElementwiseKernel(*model::NameClassifier::builtin(), Copy));
  EXPECT_FALSE(isEagerElementwiseKernel(
      *model::NameClassifier::builtin(),
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"));
  EXPECT_FALSE(isEagerElementwiseKernel(*model::NameClassifier::builtin(),
                                        "triton_poi_fused_add_cos_sin_0"));
  EXPECT_FALSE(isEagerElementwiseKernel(*model::NameClassifier::builtin(),
                                        "ampere_sgemm_128x64_tn"));
  EXPECT_FALSE(isEagerElementwiseKernel(
      *model::NameClassifier::builtin(),
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>"));
}

} // namespace
