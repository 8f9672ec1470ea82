#!/usr/bin/env python3
"""Generate a large, realistic Kineto (PyTorch profiler) Chrome trace.

Usage:
    gen_kineto_trace.py OUT SIZE [--seed N] [--gzip] [--layers N]
                        [--flow-frac F] [--census-json PATH]

SIZE is a decimal byte count with an optional K/M/G suffix (100M = 100,000,000
bytes).  It is the size of the uncompressed JSON; generation stops at the first
training-step boundary at which the file would reach roughly SIZE.  With
--gzip the output is written gzip-compressed (level 6) without ever holding the
document in memory.

The layout follows what libkineto's ChromeTraceLogger writes: a leading
newline, "schemaVersion", "deviceProperties", "distributedInfo", then the
"traceEvents" array with one event spread over a few lines (2-space indent),
and "traceName", "displayTimeUnit" and "baseTimeNanoseconds" after the array.
"ts" and "dur" are microseconds with three decimals, relative to
baseTimeNanoseconds.  The last event is the "Record Window End" instant.

Each step simulates one data-parallel training step of a GPT-style model:
ProfilerStep#N (and its gpu_user_annotation mirror on stream 7), the data
loader, host-to-device copies, python_function frames of the module tree,
nested cpu_op trees with their args, cudaLaunchKernel calls and the kernels
they launch on device 0 / stream 7, a backward pass on the autograd thread
(sequence numbers paired with the forward ops), DDP bucket all-reduces
(record_param_comms + an NCCL kernel on stream 21), an AdamW foreach
optimizer, memsets, the loss .item() device-to-host copy with its
cudaStreamSynchronize, and ac2g flow events for a fraction of the launches.

Everything is computed in integer nanoseconds, so the census printed to
stderr (and written as JSON with --census-json) is exact: an importer that
reads the file must reproduce the same counts and duration sums.

The output is deterministic for a given (SIZE, seed, layers, flow-frac).
Python standard library only.
"""

import argparse
import gzip
import json
import random
import sys
import time

GEN_VERSION = 1

NUM_SMS = 108
STREAM = 7          # compute stream
NCCL_STREAM = 21    # NCCL communication stream
DEVICE = 0

# cbids of the CUDA runtime callbacks as CUPTI reports them.
CBID = {
    "cudaLaunchKernel": 211,
    "cudaMemcpyAsync": 41,
    "cudaMemsetAsync": 51,
    "cudaStreamSynchronize": 131,
    "cudaDeviceSynchronize": 165,
    "cudaEventRecord": 135,
    "cudaStreamWaitEvent": 147,
    "cudaFuncSetAttribute": 239,
    "cudaStreamIsCapturing": 317,
}

# ---------------------------------------------------------------------------
# Kernel catalogue: key -> (name, mean duration ns, grid, block, regs, smem)

EW = "void at::native::vectorized_elementwise_kernel<4, "
MTA = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
       "at::native::(anonymous namespace)::TensorListMetadata<%d>, "
       "at::native::(anonymous namespace)::%s, %s>(at::native::(anonymous "
       "namespace)::TensorListMetadata<%d>, at::native::(anonymous "
       "namespace)::%s, %s)")
SUMRED = ("at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
          "at::native::sum_functor<float, float, float>::operator()"
          "(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
          "float, 4>")

KERNEL_SPECS = {
    "gemm_qkv": ("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_"
                 "stage3_warpsize2x2x1_tensor16x8x8_kernel",
                 131000, (24, 32, 1), (128, 1, 1), 234, 98304),
    "gemm_proj": ("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x128x32_"
                  "stage4_warpsize2x2x1_tensor16x8x8_kernel",
                  46000, (16, 64, 1), (128, 1, 1), 190, 81920),
    "gemm_fc": ("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_"
                "stage3_warpsize2x2x1_tensor16x8x8_kernel",
                172000, (32, 32, 1), (128, 1, 1), 234, 98304),
    "gemm_head": ("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize256x128x32_"
                  "stage3_warpsize4x2x1_tensor16x8x8_kernel",
                  1310000, (250, 16, 1), (256, 1, 1), 232, 147456),
    "gemm_dgrad": ("ampere_sgemm_128x64_nn", 118000, (24, 64, 1),
                   (128, 1, 1), 122, 12544),
    "gemm_wgrad": ("ampere_sgemm_128x128_nt", 126000, (8, 24, 4),
                   (256, 1, 1), 127, 16384),
    "gemm_head_bwd": ("ampere_sgemm_128x128_nn", 1250000, (250, 32, 1),
                      (256, 1, 1), 127, 16384),
    "bias_sum": ("void at::native::reduce_kernel<512, 1, %s>(%s)"
                 % (SUMRED, SUMRED), 9200, (96, 8, 1), (32, 16, 1), 32, 16),
    "layer_norm": ("void at::native::(anonymous namespace)::"
                   "vectorized_layer_norm_kernel<float, float>(int, float, "
                   "float const*, float const*, float const*, float*, float*, "
                   "float*)", 14600, (4096, 1, 1), (32, 4, 1), 40, 0),
    "layer_norm_bwd_in": ("void at::native::(anonymous namespace)::"
                          "layer_norm_grad_input_kernel_vectorized<float, "
                          "float>(float const*, float const*, float const*, "
                          "float const*, float const*, float*, int)",
                          21300, (4096, 1, 1), (128, 1, 1), 56, 0),
    "layer_norm_bwd_gb": ("void at::native::(anonymous namespace)::"
                          "GammaBetaBackwardCUDAKernel_32x32<float, float>("
                          "long, long, float const*, float const*, float "
                          "const*, float const*, float*, float*)",
                          17800, (32, 1, 1), (32, 32, 1), 64, 8448),
    "attn_fwd": ("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention"
                 "::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, "
                 "64, true, true>::Params)", 141000, (8, 16, 8), (32, 4, 1),
                 255, 46208),
    "attn_bwd": ("fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention"
                 "::AttentionBackwardKernel<cutlass::arch::Sm80, float, true, "
                 "false, true, 64, 64, 64, false>::Params)", 352000,
                 (1, 16, 8), (128, 1, 1), 255, 79872),
    "add": (EW + "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
            "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<"
            "char*, 3>)", 31500, (2048, 1, 1), (128, 1, 1), 26, 0),
    "gelu": (EW + "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
             "at::native::GeluType)::{lambda()#2}::operator()() const::"
             "{lambda()#2}::operator()() const::{lambda(float)#1}, "
             "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl"
             "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::"
             "operator()() const::{lambda()#2}::operator()() const::"
             "{lambda(float)#1}, at::detail::Array<char*, 2>)",
             42700, (8192, 1, 1), (128, 1, 1), 28, 0),
    "gelu_bwd": (EW + "at::native::GeluBackwardCUDAKernelImpl(at::"
                 "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::"
                 "operator()() const::{lambda()#2}::operator()() const::"
                 "{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, "
                 "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&"
                 ", at::native::GeluType)::{lambda()#2}::operator()() const::"
                 "{lambda()#2}::operator()() const::{lambda(float, float)#1}, "
                 "at::detail::Array<char*, 3>)",
                 63100, (8192, 1, 1), (128, 1, 1), 30, 0),
    "dropout": ("void at::native::(anonymous namespace)::fused_dropout_kernel_vec"
                "<float, float, unsigned int, 1, 4, bool>(at::cuda::detail::"
                "TensorInfo<float const, unsigned int>, at::cuda::detail::"
                "TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<"
                "bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
                36400, (864, 1, 1), (256, 1, 1), 32, 0),
    "dropout_bwd": (EW + "at::native::(anonymous namespace)::masked_scale_kernel"
                    "<bool, float, float>(at::Tensor&, at::Tensor const&, "
                    "at::Tensor const&, float)::{lambda(float, bool)#1}, "
                    "at::detail::Array<char*, 3> >(int, at::native::(anonymous "
                    "namespace)::masked_scale_kernel<bool, float, float>(at::"
                    "Tensor&, at::Tensor const&, at::Tensor const&, float)::"
                    "{lambda(float, bool)#1}, at::detail::Array<char*, 3>)",
                    27900, (2048, 1, 1), (128, 1, 1), 24, 0),
    "embedding": ("void at::native::(anonymous namespace)::indexSelectLargeIndex"
                  "<float, long, unsigned int, 2, 2, -2, true>(at::cuda::detail"
                  "::TensorInfo<float, unsigned int>, at::cuda::detail::"
                  "TensorInfo<float, unsigned int>, at::cuda::detail::"
                  "TensorInfo<long, unsigned int>, int, int, unsigned int, "
                  "unsigned int, long)", 24800, (4096, 1, 1), (128, 1, 1),
                  30, 0),
    "embedding_bwd": ("void at::native::(anonymous namespace)::"
                      "embedding_backward_feature_kernel<float, float, long>("
                      "long const*, float const*, float*, int, long, int, int)",
                      88400, (32, 1, 1), (32, 32, 1), 40, 8448),
    "log_softmax": ("void at::native::(anonymous namespace)::cunn_SoftMaxForward"
                    "<4, float, float, float, at::native::(anonymous namespace)::"
                    "LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                    402000, (4096, 1, 1), (1024, 1, 1), 37, 0),
    "log_softmax_bwd": ("void at::native::(anonymous namespace)::"
                        "cunn_SoftMaxBackward<4, float, float, float, "
                        "at::native::(anonymous namespace)::"
                        "LogSoftMaxBackwardEpilogue>(float*, float const*, "
                        "float const*, long)", 611000, (4096, 1, 1),
                        (1024, 1, 1), 38, 0),
    "nll": ("void at::native::(anonymous namespace)::"
            "nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, "
            "float*, float const*, long const*, float const*, bool, long, long, "
            "long, long)", 16100, (1, 1, 1), (32, 1, 1), 32, 0),
    "nll_bwd": ("void at::native::(anonymous namespace)::"
                "nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, "
                "float const*, long const*, float const*, float const*, bool, "
                "int, int, long, long)", 7300, (1, 1, 1), (32, 1, 1), 24, 0),
    "fill": (EW + "at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
             ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
             "1>)", 2600, (108, 1, 1), (128, 1, 1), 16, 0),
    "adam_add": (MTA % (1, "BinaryOpScalarFunctor<float, 1, 1, 0>",
                        "std::plus<float>, double", 1,
                        "BinaryOpScalarFunctor<float, 1, 1, 0>",
                        "std::plus<float>, double"),
                 21300, (320, 1, 1), (512, 1, 1), 30, 0),
    "adam_lerp": (MTA % (2, "TernaryOpScalarFunctor<float, 2, 2, 0>",
                         "at::native::LerpFunctor<float>, float", 2,
                         "TernaryOpScalarFunctor<float, 2, 2, 0>",
                         "at::native::LerpFunctor<float>, float"),
                  34800, (320, 1, 1), (512, 1, 1), 40, 0),
    "adam_mul": (MTA % (1, "BinaryOpScalarFunctor<float, 1, 1, 0>",
                        "std::multiplies<float>, double", 1,
                        "BinaryOpScalarFunctor<float, 1, 1, 0>",
                        "std::multiplies<float>, double"),
                 20700, (320, 1, 1), (512, 1, 1), 30, 0),
    "adam_addcmul": (MTA % (3, "PointwiseOpScalarFunctor<float, 3, 3, 0>",
                            "std::multiplies<float>, double", 3,
                            "PointwiseOpScalarFunctor<float, 3, 3, 0>",
                            "std::multiplies<float>, double"),
                     39600, (320, 1, 1), (512, 1, 1), 48, 0),
    "adam_sqrt": (MTA % (2, "UnaryOpFunctor<float, 2, 1, 1>",
                         "at::native::Sqrt<float>", 2,
                         "UnaryOpFunctor<float, 2, 1, 1>",
                         "at::native::Sqrt<float>"),
                  26100, (320, 1, 1), (512, 1, 1), 32, 0),
    "adam_addcdiv": (MTA % (3, "PointwiseOpScalarListFunctor<float, 3, 3, 0>",
                            "std::divides<float>, at::native::(anonymous "
                            "namespace)::TensorListScalarListMetadata<float, "
                            "3>", 3,
                            "PointwiseOpScalarListFunctor<float, 3, 3, 0>",
                            "std::divides<float>, at::native::(anonymous "
                            "namespace)::TensorListScalarListMetadata<float, "
                            "3>"),
                     41900, (320, 1, 1), (512, 1, 1), 52, 0),
    "nccl": ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned "
             "long, ncclWork*)", 690000, (24, 1, 1), (640, 1, 1), 96, 0),
}


def _kineto_float(x):
    """Shortest round-trip form, like fmt's "{}" in libkineto."""
    s = repr(float(round(x, 6)))
    return s


def _build_kernels():
    table = {}
    for key, (name, dur, grid, block, regs, smem) in KERNEL_SPECS.items():
        blocks = grid[0] * grid[1] * grid[2]
        threads = block[0] * block[1] * block[2]
        bpsm = blocks / NUM_SMS
        wpsm = bpsm * threads / 32.0
        occ = int(min(100.0, wpsm / 64.0 * 100.0 * 0.8))
        tail = (',\n      "registers per thread": %d,\n      "shared memory": %d,'
                '\n      "blocks per SM": %s,\n      "warps per SM": %s,'
                '\n      "grid": [%d, %d, %d],\n      "block": [%d, %d, %d],'
                '\n      "est. achieved occupancy %%": %d'
                % (regs, smem, _kineto_float(bpsm), _kineto_float(wpsm),
                   grid[0], grid[1], grid[2], block[0], block[1], block[2],
                   occ))
        table[key] = (name, dur, tail)
    return table


KERNELS = _build_kernels()

# ---------------------------------------------------------------------------
# Event text templates (libkineto's layout).

T_X = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d,\n'
       '    "ts": %s, "dur": %s,\n    "args": {\n      %s\n    }\n  }')
T_KERNEL = ('  {\n    "ph": "X", "cat": "kernel", "name": "%s", "pid": %d, '
            '"tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
            '      "queued": 0, "device": %d, "context": 1,\n'
            '      "stream": %d, "correlation": %d,\n'
            '      "External id": %d%s\n    }\n  }')
T_MEM = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, '
         '"tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
         '      "device": %d, "context": 1,\n'
         '      "stream": %d, "correlation": %d,\n'
         '      "bytes": %d, "memory bandwidth (GB/s)": %s,\n'
         '      "External id": %d\n    }\n  }')
T_RUNTIME = ('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d,'
             ' "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
             '      "cbid": %d, "correlation": %d,\n'
             '      "External id": %d\n    }\n  }')
T_FLOW_S = ('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
            '    "cat": "ac2g", "name": "ac2g"\n  }')
T_FLOW_F = ('  {\n    "ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
            '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }')
T_META = ('  {\n    "name": "%s", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
          '    "args": {\n      "%s": %s\n    }\n  }')


def us(ns):
    """Integer nanoseconds -> microseconds with three decimals."""
    q, r = divmod(ns, 1000)
    return "%d.%03d" % (q, r)


def dims(*shapes):
    return "[" + ", ".join("[" + ", ".join(str(d) for d in s) + "]"
                           for s in shapes) + "]"


def types(*ts):
    return "[" + ", ".join('"%s"' % t for t in ts) + "]"


def inputs(shapes, tys):
    concrete = "[" + ", ".join('"1"' if t == "Scalar" else '""' for t in tys) + "]"
    return ', "Input Dims": %s, "Input type": %s, "Concrete Inputs": %s' % (
        dims(*shapes), types(*tys), concrete)


# ---------------------------------------------------------------------------
# Operator trees.  A node is one of
#   (OP, name, cost_ns, const_args, children, seqmode)
#   (LAUNCH, kernel_key)
#   (RT, runtime_name)                       runtime call, no device activity
#   (MEMSET, bytes)
# seqmode: 0 none, 1 forward op (takes a new sequence number),
#          2 backward node (takes the paired forward sequence number).

OP, LAUNCH, RT, MEMSET = 0, 1, 2, 3

B, S, H, V = 8, 512, 1024, 32000
N = B * S
F = "float"


def op(name, cost, const="", children=(), seq=0):
    return (OP, name, cost, const, tuple(children), seq)


def launch(key):
    return (LAUNCH, key)


def as_strided(shape):
    return op("aten::as_strided", 1400,
              inputs([shape, [], [], []], [F, "", "", ""]))


def transpose(shape):
    return op("aten::transpose", 2100,
              inputs([shape, [], []], [F, "Scalar", "Scalar"]),
              [as_strided(shape[::-1])])


def t_op(shape, seq=0, deep=False):
    return op("aten::t", 1900, inputs([shape], [F]),
              [transpose(shape)] if deep else [], seq)


def view(shape):
    return op("aten::view", 1600, inputs([shape, []], [F, ""]))


def empty(shape, ty=F):
    return op("aten::empty", 2300,
              inputs([shape, [], [], [], [], []], ["", "Scalar", "", "", "", ""]))


def capturing():
    """The caching allocator asks whether the stream is being captured."""
    return (RT, "cudaStreamIsCapturing")


# Forward --------------------------------------------------------------------

def linear_fwd(n_in, n_out, gemm):
    x = [B, S, n_in]
    w = [n_out, n_in]
    return op("aten::linear", 4200, inputs([x, w, [n_out]], [F, F, F]), [
        t_op(w, seq=1, deep=(gemm == "gemm_qkv")),
        op("aten::addmm", 9800,
           inputs([[n_out], [N, n_in], [n_in, n_out], [], []],
                  [F, F, F, "Scalar", "Scalar"]), [launch(gemm)], seq=1),
    ])


def layer_norm_fwd():
    x = [B, S, H]
    return op("aten::layer_norm", 3600,
              inputs([x, [], [H], [H], [], []], [F, "", F, F, "Scalar", "Scalar"]),
              [op("aten::native_layer_norm", 7400,
                  inputs([x, [], [H], [H], []], [F, "", F, F, "Scalar"]),
                  [empty(x), launch("layer_norm")], seq=1)])


def dropout_fwd(shape):
    return op("aten::dropout", 2600, inputs([shape, [], []], [F, "Scalar", "Scalar"]),
              [op("aten::native_dropout", 6900,
                  inputs([shape, [], []], [F, "Scalar", "Scalar"]),
                  [op("aten::empty_like", 2700,
                      inputs([shape, [], [], [], [], []],
                             [F, "", "", "", "", ""]), [capturing()]),
                   launch("dropout")], seq=1)])


def add_fwd(shape):
    return op("aten::add", 6100, inputs([shape, shape, []], [F, F, "Scalar"]),
              [launch("add")], seq=1)


def gelu_fwd(shape):
    return op("aten::gelu", 6000, inputs([shape, []], [F, ""]),
              [launch("gelu")], seq=1)


def attention_fwd():
    qkv = [B, S, 3 * H]
    head = [B, 16, S, 64]
    split = op("aten::split", 3900, inputs([qkv, [], []], [F, "Scalar", "Scalar"]),
               [op("aten::narrow", 2400, inputs([qkv, [], [], []], [F, "", "", ""]))
                for _ in range(3)], seq=1)
    sdpa = op("aten::scaled_dot_product_attention", 5200,
              inputs([head, head, head, [], [], [], []],
                     [F, F, F, "", "Scalar", "Scalar", ""]), [
        op("aten::_scaled_dot_product_efficient_attention", 4100,
           inputs([head, head, head, [], [], [], []],
                  [F, F, F, "", "Scalar", "Scalar", ""]), [
            op("aten::_efficient_attention_forward", 9200,
               inputs([[B, S, 16, 64], [B, S, 16, 64], [B, S, 16, 64], [], [], [],
                       [], [], [], [], [], []],
                      [F, F, F, "", "", "", "", "", "Scalar", "", "", ""]), [
                empty([B, 16, 512]),
                (RT, "cudaFuncSetAttribute"), launch("attn_fwd")]),
        ], seq=1),
    ])
    return [split, sdpa]


def to_device(shape, nbytes):
    return op("aten::to", 2500, inputs([shape, [], [], [], []],
                                       ["long int", "", "", "", ""]), [
        op("aten::_to_copy", 4300, inputs([shape, [], [], [], [], [], []],
                                          ["long int", "", "", "", "", "", ""]), [
            op("aten::empty_strided", 3100,
               inputs([[], [], [], [], [], []], ["", "", "", "", "", ""])),
            op("aten::copy_", 5200, inputs([shape, shape, []],
                                           ["long int", "long int", "Scalar"]),
               [("HTOD", nbytes)]),
        ])])


# Backward -------------------------------------------------------------------

def ev_fn(node, children):
    """autograd::engine::evaluate_function: X wrapper around node X."""
    return op("autograd::engine::evaluate_function: " + node, 3300, "",
              [op(node, 3800, "", children, seq=2)])


def accumulate_grad(shape):
    """Gradient accumulation into .grad (micro-batch accumulation)."""
    return op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
              2600, "", [op("torch::autograd::AccumulateGrad", 3100, "", [
                  op("aten::add_", 5400, inputs([shape, shape, []], [F, F, "Scalar"]),
                     [launch("add")])])])


def linear_bwd(n_in, n_out, dgrad="gemm_dgrad", wgrad="gemm_wgrad"):
    w = [n_out, n_in]
    return [
        ev_fn("AddmmBackward0", [
            t_op([n_in, n_out]),
            op("aten::mm", 7700, inputs([[N, n_out], [n_out, n_in]], [F, F]),
               [launch(dgrad)]),
            op("aten::mm", 7500, inputs([[n_out, N], [N, n_in]], [F, F]),
               [launch(wgrad)]),
            op("aten::sum", 6900, inputs([[N, n_out], [], [], []],
                                         [F, "", "Scalar", ""]),
               [launch("bias_sum")]),
        ]),
        accumulate_grad([n_out]),
        ev_fn("TBackward0", [t_op([n_in, n_out])]),
        accumulate_grad(w),
    ]


def layer_norm_bwd():
    x = [B, S, H]
    return [
        ev_fn("NativeLayerNormBackward0", [
            op("aten::native_layer_norm_backward", 9600,
               inputs([x, x, [], [B, S, 1], [B, S, 1], [H], [H], []],
                      [F, F, "", F, F, F, F, ""]), [
                   op("aten::empty_like", 2600, "", [capturing()]),
                   launch("layer_norm_bwd_in"), launch("layer_norm_bwd_gb")])]),
        accumulate_grad([H]),
        accumulate_grad([H]),
    ]


def dropout_bwd(shape):
    return [ev_fn("NativeDropoutBackward0", [
        op("aten::native_dropout_backward", 5600,
           inputs([shape, shape, []], [F, "bool", "Scalar"]),
           [launch("dropout_bwd")])])]


def add_bwd():
    return [ev_fn("AddBackward0", [])]


def gelu_bwd(shape):
    return [ev_fn("GeluBackward0", [
        op("aten::gelu_backward", 5900, inputs([shape, shape, []], [F, F, ""]),
           [launch("gelu_bwd")])])]


def attention_bwd():
    head = [B, 16, S, 64]
    return [
        ev_fn("ScaledDotProductEfficientAttentionBackward0", [
            op("aten::_efficient_attention_backward", 11800,
               inputs([head, head, head, head, [], [], [], []],
                      [F, F, F, F, "", "", "", ""]), [
                   op("aten::zero_", 2900, inputs([[B, 16, 512]], [F]),
                      [(MEMSET, B * 16 * 512 * 4)]),
                   (RT, "cudaFuncSetAttribute"),
                   launch("attn_bwd")])]),
        ev_fn("SplitBackward0", [
            op("aten::cat", 6300, inputs([[B, S, H], []], ["TensorList", "Scalar"]),
               [launch("add")])]),
    ]


def block_fwd_parts():
    """(module kind, op trees) for the modules of one transformer block."""
    x = [B, S, H]
    return [
        ("ln", layer_norm_fwd()),
        ("linear", linear_fwd(H, 3 * H, "gemm_qkv")),
        ("attn", attention_fwd()),
        ("linear", linear_fwd(H, H, "gemm_proj")),
        ("dropout", dropout_fwd(x)),
        ("add", add_fwd(x)),
        ("ln", layer_norm_fwd()),
        ("linear", linear_fwd(H, 4 * H, "gemm_fc")),
        ("gelu", gelu_fwd([B, S, 4 * H])),
        ("linear", linear_fwd(4 * H, H, "gemm_fc")),
        ("dropout", dropout_fwd(x)),
        ("add", add_fwd(x)),
    ]


def block_bwd():
    x = [B, S, H]
    nodes = []
    nodes += add_bwd()
    nodes += dropout_bwd(x)
    nodes += linear_bwd(4 * H, H)
    nodes += gelu_bwd([B, S, 4 * H])
    nodes += linear_bwd(H, 4 * H)
    nodes += layer_norm_bwd()
    nodes += add_bwd()
    nodes += dropout_bwd(x)
    nodes += linear_bwd(H, H)
    nodes += attention_bwd()
    nodes += linear_bwd(H, 3 * H)
    nodes += layer_norm_bwd()
    return nodes


# module kind -> (nn.Module class, python frames inside the module frame)
PY_FRAMES = {
    "ln": ("LayerNorm", ["torch/nn/modules/normalization.py(201): forward",
                         "torch/nn/functional.py(2546): layer_norm",
                         "<built-in method layer_norm of type object at "
                         "0x7f5c3e2d9b20>"]),
    "linear": ("Linear", ["torch/nn/modules/linear.py(116): forward",
                          "<built-in function linear>"]),
    "attn": ("CausalSelfAttention", ["model.py(61): forward",
                                     "<built-in function scaled_dot_product_attention>"]),
    "dropout": ("Dropout", ["torch/nn/modules/dropout.py(59): forward",
                            "torch/nn/functional.py(1295): dropout",
                            "<built-in function dropout>"]),
    "add": (None, []),
    "gelu": ("GELU", ["torch/nn/modules/activation.py(682): forward",
                      "<built-in function gelu>"]),
}

ADAM_OPS = [
    ("aten::_foreach_add_", "adam_add"),
    ("aten::_foreach_lerp_", "adam_lerp"),
    ("aten::_foreach_mul_", "adam_mul"),
    ("aten::_foreach_addcmul_", "adam_addcmul"),
    ("aten::_foreach_sqrt", "adam_sqrt"),
    ("aten::_foreach_div_", "adam_mul"),
    ("aten::_foreach_add_", "adam_add"),
    ("aten::_foreach_addcdiv_", "adam_addcdiv"),
]


# ---------------------------------------------------------------------------

class Generator:
    def __init__(self, out, seed, layers, flow_frac, rank=0):
        self.out = out
        self.rng = random.Random(seed)
        self.r = self.rng.random
        self.layers = layers
        self.flow_frac = flow_frac
        self.rank = rank
        self.pid = 2183920 + 17 * (seed % 1000) + rank
        self.main = self.pid
        self.bwd = self.pid + 163
        self.base_ns = 1764403200000000000 + (seed % 100000) * 1000003
        t0 = 1000000 + int(self.r() * 500000)
        self.t_start = t0
        self.clk = {self.main: t0 + 50000, self.bwd: t0 + 50000}
        self.gpu_free = {STREAM: t0, NCCL_STREAM: t0}
        self.ext_stack = {self.main: [], self.bwd: []}
        self.ext = 0
        self.evidx = 0
        self.corr = 0
        self.pyid = 0
        self.py_stack = [0]
        self.seq = 0
        self.fwd_seqs = []
        self.cpu = []      # [ts, order, text] of host events of the current step
        self.dev = []      # [ts, order, text] of runtime/device events
        self.order = 0
        self.written = 0
        self.counts = {}
        self.x_count = 0
        self.x_dur = 0
        self.kernels = 0
        self.kernel_dur = 0
        self.stream_busy = {STREAM: 0, NCCL_STREAM: 0}
        self.stream_kernels = {STREAM: 0, NCCL_STREAM: 0}
        self.memcpy_bytes = 0
        self.memset_bytes = 0
        self.copies = {}
        self.step_intervals = []
        self.device_busy_union = 0
        self.step_durs = []
        self.flows = 0
        self.runtime_names = {}
        self.steps = 0
        self.step_gpu = None
        self.last_ts = t0
        self.block_fwd = block_fwd_parts()
        self.block_bwd = block_bwd()
        self.instances = {}
        self.module_id = -1
        self._trees()

    # -- bookkeeping -------------------------------------------------------
    def count(self, cat, n=1):
        c = self.counts
        c[cat] = c.get(cat, 0) + n

    def x(self, cat, dur):
        c = self.counts
        c[cat] = c.get(cat, 0) + 1
        self.x_count += 1
        self.x_dur += dur

    def write(self, s):
        self.out.write(s)
        self.written += len(s)

    def gap(self):
        return 250 + int(self.r() * 900)

    def cur_ext(self, tid):
        st = self.ext_stack[tid]
        return st[-1] if st else 0

    # -- host events -------------------------------------------------------
    def run(self, tid, node):
        kind = node[0]
        if kind == OP:
            self.run_op(tid, node)
        elif kind == LAUNCH:
            self.launch(tid, node[1])
        elif kind == RT:
            self.runtime(tid, node[1])
        elif kind == MEMSET:
            self.memset(tid, node[1])
        elif kind == "HTOD":
            self.memcpy(tid, "Memcpy HtoD (Pageable -> Device)", node[1], 9.5)
        else:
            raise AssertionError(kind)

    def run_op(self, tid, node):
        _, name, cost, const, children, seqmode = node
        r = self.r
        clk = self.clk
        t0 = clk[tid] + self.gap()
        self.ext += 1
        ext = self.ext
        ev = self.evidx
        self.evidx += 1
        rec = [t0, self.order, None]
        self.order += 1
        self.cpu.append(rec)
        st = self.ext_stack[tid]
        st.append(ext)
        clk[tid] = t0 + int(cost * (0.35 + 0.5 * r()))
        for ch in children:
            self.run(tid, ch)
        end = clk[tid] + int(cost * (0.15 + 0.3 * r()))
        clk[tid] = end
        st.pop()
        if seqmode == 1:
            self.seq += 1
            self.fwd_seqs.append(self.seq)
            seq = ', "Sequence number": %d, "Fwd thread id": 0' % self.seq
        elif seqmode == 2:
            s = self.fwd_seqs.pop() if self.fwd_seqs else 0
            seq = ', "Sequence number": %d, "Fwd thread id": 1' % s
        else:
            seq = ""
        dur = end - t0
        args = '"External id": %d,"Record function id": 0%s, "Ev Idx": %d%s' % (
            ext, seq, ev, const)
        rec[2] = T_X % ("cpu_op", name, self.pid, tid, us(t0), us(dur), args)
        self.x("cpu_op", dur)

    def cpu_op_custom(self, tid, name, cost, extra_args, body=None,
                      cat="cpu_op"):
        """An op whose args are given whole (record_param_comms etc.)."""
        clk = self.clk
        t0 = clk[tid] + self.gap()
        self.ext += 1
        ext = self.ext
        ev = self.evidx
        self.evidx += 1
        rec = [t0, self.order, None]
        self.order += 1
        self.cpu.append(rec)
        st = self.ext_stack[tid]
        st.append(ext)
        clk[tid] = t0 + int(cost * (0.35 + 0.5 * self.r()))
        if body:
            body()
        end = clk[tid] + int(cost * (0.15 + 0.3 * self.r()))
        clk[tid] = end
        st.pop()
        dur = end - t0
        args = '"External id": %d,"Record function id": 0, "Ev Idx": %d%s' % (
            ext, ev, extra_args)
        rec[2] = T_X % (cat, name, self.pid, tid, us(t0), us(dur), args)
        self.x(cat, dur)
        return ext

    def py_begin(self, name, module_id=-1):
        tid = self.main
        t0 = self.clk[tid] + self.gap()
        self.pyid += 1
        pyid = self.pyid
        parent = self.py_stack[-1]
        self.py_stack.append(pyid)
        ev = self.evidx
        self.evidx += 1
        rec = [t0, self.order, None]
        self.order += 1
        self.cpu.append(rec)
        self.clk[tid] = t0 + 600 + int(self.r() * 1800)
        return (rec, name, pyid, parent, ev, module_id)

    def py_end(self, h):
        rec, name, pyid, parent, ev, module_id = h
        tid = self.main
        end = self.clk[tid] + 300 + int(self.r() * 900)
        self.clk[tid] = end
        self.py_stack.pop()
        t0 = rec[0]
        dur = end - t0
        args = '"Python parent id": %d, "Python id": %d, "Ev Idx": %d' % (
            parent, pyid, ev)
        if module_id >= 0:
            args += ', "Python module id": %d' % module_id
        rec[2] = T_X % ("python_function", name, self.pid, tid, us(t0), us(dur),
                        args)
        self.x("python_function", dur)

    # -- runtime + device events --------------------------------------------
    def _runtime_text(self, tid, name, t0, dur, corr, ext):
        self.x("cuda_runtime", dur)
        rn = self.runtime_names
        rn[name] = rn.get(name, 0) + 1
        return T_RUNTIME % (name, self.pid, tid, us(t0), us(dur), CBID[name],
                            corr, ext)

    def _gpu_slot(self, stream, t_launch, dur, after=None):
        g0 = t_launch + 2800 + int(self.r() * 1500)
        free = self.gpu_free[stream] + 700 + int(self.r() * 1100)
        if free > g0:
            g0 = free
        if after is not None and after > g0:
            g0 = after
        g1 = g0 + dur
        self.gpu_free[stream] = g1
        self.stream_busy[stream] += dur
        self.step_intervals.append((g0, g1))
        if stream == STREAM:
            sg = self.step_gpu
            if sg is None:
                self.step_gpu = [g0, g1]
            elif g1 > sg[1]:
                sg[1] = g1
        return g0

    def _push_dev(self, ts, text):
        self.dev.append([ts, self.order, text])
        self.order += 1

    def launch(self, tid, key, stream=STREAM):
        r = self.r
        clk = self.clk
        t0 = clk[tid] + self.gap()
        rdur = 2400 + int(r() * 3200)
        if r() < 0.01:
            rdur += int(r() * 60000)   # an occasional slow launch
        self.corr += 1
        corr = self.corr
        ext = self.cur_ext(tid)
        name, mean, tail = KERNELS[key]
        kdur = int(mean * (0.94 + 0.12 * r()))
        after = self.gpu_free[STREAM] if stream != STREAM else None
        g0 = self._gpu_slot(stream, t0, kdur, after)
        clk[tid] = t0 + rdur
        flow = r() < self.flow_frac
        rt = self._runtime_text(tid, "cudaLaunchKernel", t0, rdur, corr, ext)
        if flow:
            rt += ",\n" + T_FLOW_S % (corr, self.pid, tid, us(t0))
        self._push_dev(t0, rt)
        kt = T_KERNEL % (name, DEVICE, stream, us(g0), us(kdur), DEVICE, stream,
                         corr, ext, tail)
        if flow:
            kt += ",\n" + T_FLOW_F % (corr, DEVICE, stream, us(g0))
            self.flows += 1
            self.count("ac2g", 2)
        self._push_dev(g0, kt)
        self.x("kernel", kdur)
        self.kernels += 1
        self.kernel_dur += kdur
        self.stream_kernels[stream] += 1

    def _mem_activity(self, tid, rt_name, cat, name, nbytes, gbps, sync=False):
        r = self.r
        clk = self.clk
        t0 = clk[tid] + self.gap()
        self.corr += 1
        corr = self.corr
        ext = self.cur_ext(tid)
        mdur = 1100 + int(nbytes / gbps * (0.9 + 0.2 * r()))
        g0 = self._gpu_slot(STREAM, t0, mdur)
        rdur = 2900 + int(r() * 2500)
        if sync and g0 + mdur + 1500 > t0 + rdur:
            rdur = g0 + mdur + 1500 + int(r() * 800) - t0
        clk[tid] = t0 + rdur
        flow = r() < self.flow_frac
        rt = self._runtime_text(tid, rt_name, t0, rdur, corr, ext)
        if flow:
            rt += ",\n" + T_FLOW_S % (corr, self.pid, tid, us(t0))
        self._push_dev(t0, rt)
        bw = repr(nbytes / mdur)
        mt = T_MEM % (cat, name, DEVICE, STREAM, us(g0), us(mdur), DEVICE,
                      STREAM, corr, nbytes, bw, ext)
        if flow:
            mt += ",\n" + T_FLOW_F % (corr, DEVICE, STREAM, us(g0))
            self.flows += 1
            self.count("ac2g", 2)
        self._push_dev(g0, mt)
        self.x(cat, mdur)
        if cat == "gpu_memcpy":
            self.memcpy_bytes += nbytes
            self.copies[name] = self.copies.get(name, 0) + 1
        else:
            self.memset_bytes += nbytes

    def memcpy(self, tid, name, nbytes, gbps, sync=False):
        self._mem_activity(tid, "cudaMemcpyAsync", "gpu_memcpy", name, nbytes,
                           gbps, sync)

    def memset(self, tid, nbytes):
        self._mem_activity(tid, "cudaMemsetAsync", "gpu_memset",
                           "Memset (Device)", nbytes, 900.0)

    def runtime(self, tid, name, wait_stream=None):
        """A runtime call without device activity (sync, events, attrs)."""
        clk = self.clk
        t0 = clk[tid] + self.gap()
        dur = 900 + int(self.r() * 2600)
        if wait_stream is not None:
            done = self.gpu_free[wait_stream] + 1200 + int(self.r() * 900)
            if done > t0 + dur:
                dur = done - t0
        self.corr += 1
        clk[tid] = t0 + dur
        self._push_dev(t0, self._runtime_text(tid, name, t0, dur, self.corr,
                                              self.cur_ext(tid)))

    def user_annotation_begin(self, tid, name):
        t0 = self.clk[tid] + self.gap()
        self.ext += 1
        ev = self.evidx
        self.evidx += 1
        rec = [t0, self.order, None]
        self.order += 1
        self.cpu.append(rec)
        self.ext_stack[tid].append(self.ext)
        self.clk[tid] = t0 + 1500 + int(self.r() * 2000)
        return (rec, name, self.ext, ev, tid)

    def user_annotation_end(self, h):
        rec, name, ext, ev, tid = h
        end = self.clk[tid] + 800 + int(self.r() * 1200)
        self.clk[tid] = end
        self.ext_stack[tid].pop()
        dur = end - rec[0]
        args = '"External id": %d,"Record function id": 0, "Ev Idx": %d' % (ext, ev)
        rec[2] = T_X % ("user_annotation", name, self.pid, tid, us(rec[0]),
                        us(dur), args)
        self.x("user_annotation", dur)
        return ext

    # -- the model ---------------------------------------------------------
    def module_frames(self, cls, frames):
        """Open an nn.Module python frame (numbered per class) and its frames."""
        n = self.instances.get(cls, 0)
        self.instances[cls] = n + 1
        self.module_id += 1
        hs = [self.py_begin("nn.Module: %s_%d" % (cls, n), module_id=self.module_id)]
        for f in frames:
            hs.append(self.py_begin(f))
        return hs

    def close(self, hs):
        for h in reversed(hs):
            self.py_end(h)

    def module(self, kind, tree):
        main = self.main
        cls, frames = PY_FRAMES[kind]
        trees = tree if isinstance(tree, list) else [tree]
        hs = self.module_frames(cls, frames) if cls else []
        for t in trees:
            self.run(main, t)
        self.close(hs)

    def forward(self):
        main = self.main
        self.instances = {}
        self.module_id = -1
        hs = [self.py_begin("torch/nn/modules/module.py(1541): _call_impl")]
        hs += self.module_frames("DistributedDataParallel",
                                 ["torch/nn/parallel/distributed.py(1593): forward"])
        hs += self.module_frames("GPT", ["model.py(187): forward"])
        he = self.module_frames("Embedding",
                                ["torch/nn/modules/sparse.py(163): forward",
                                 "torch/nn/functional.py(2237): embedding"])
        self.run(main, self.tree_embedding)
        self.close(he)
        for layer in range(self.layers):
            hb = self.module_frames("Block", ["model.py(112): forward"])
            for kind, tree in self.block_fwd:
                self.module(kind, tree)
            self.close(hb)
        self.module("ln", self.tree_final_ln)
        self.module("linear", self.tree_head)
        self.close(hs)
        # loss
        hl = self.py_begin("torch/nn/functional.py(3086): cross_entropy")
        hl2 = self.py_begin("<built-in function cross_entropy_loss>")
        self.run(main, self.tree_loss)
        self.py_end(hl2)
        self.py_end(hl)

    def _trees(self):
        self.tree_embedding = op(
            "aten::embedding", 4200,
            inputs([[V, H], [B, S], [], [], []],
                   [F, "long int", "Scalar", "Scalar", "Scalar"]),
            [op("aten::reshape", 2200, "", [view([N])]),
             op("aten::index_select", 6800,
                inputs([[V, H], [], [N]], [F, "Scalar", "long int"]),
                [empty([N, H]), launch("embedding")]),
             view([B, S, H])], seq=1)
        self.tree_final_ln = layer_norm_fwd()
        self.tree_head = linear_fwd(H, V, "gemm_head")
        self.tree_loss = op(
            "aten::cross_entropy_loss", 3500,
            inputs([[N, V], [N], [], [], [], []],
                   [F, "long int", "", "Scalar", "Scalar", "Scalar"]), [
                op("aten::log_softmax", 3100,
                   inputs([[N, V], [], []], [F, "Scalar", ""]),
                   [op("aten::_log_softmax", 6300,
                       inputs([[N, V], [], []], [F, "Scalar", "Scalar"]),
                       [launch("log_softmax")], seq=1)]),
                op("aten::nll_loss_nd", 2900,
                   inputs([[N, V], [N], [], [], []],
                          [F, "long int", "", "Scalar", "Scalar"]),
                   [op("aten::nll_loss", 3000, "", [
                       op("aten::nll_loss_forward", 7100, "", [
                           empty([]), empty([]), launch("nll")], seq=1)])]),
            ])
        self.tree_loss_bwd = [
            ev_fn("NllLossBackward0", [
                op("aten::nll_loss_backward", 6100, "", [
                    op("aten::zeros", 3300, "", [
                        empty([N, V]),
                        op("aten::zero_", 2800, inputs([[N, V]], [F]),
                           [op("aten::fill_", 4300,
                               inputs([[N, V], []], [F, "Scalar"]),
                               [launch("fill")])])]),
                    launch("nll_bwd")])]),
            ev_fn("LogSoftmaxBackward0", [
                op("aten::_log_softmax_backward_data", 6600, "", [
                    empty([N, V]), launch("log_softmax_bwd")])])]
        self.tree_loss_bwd += linear_bwd(H, V, "gemm_head_bwd", "gemm_head_bwd")
        self.tree_loss_bwd += layer_norm_bwd()
        self.tree_embedding_bwd = [
            ev_fn("EmbeddingBackward0", [
                op("aten::embedding_backward", 3800, "", [
                    op("aten::embedding_dense_backward", 8100, "", [
                        op("aten::zeros", 3300, "", [
                            empty([V, H]),
                            op("aten::zero_", 2800, inputs([[V, H]], [F]),
                               [(MEMSET, V * H * 4)])]),
                        launch("embedding_bwd")])])]),
            accumulate_grad([V, H])]

    def backward(self):
        """Backward pass on the autograd thread; DDP all-reduce buckets."""
        main, bwd = self.main, self.bwd
        h = [self.py_begin("torch/_tensor.py(523): backward"),
             self.py_begin("torch/autograd/__init__.py(267): backward"),
             self.py_begin("torch/autograd/graph.py(768): _engine_run_backward")]
        self.clk[bwd] = max(self.clk[bwd], self.clk[main]) + 9000 + int(self.r() * 6000)
        run = self.run
        for n in self.tree_loss_bwd:
            run(bwd, n)
        bucket = 0
        for layer in range(self.layers - 1, -1, -1):
            for n in self.block_bwd:
                run(bwd, n)
            if layer % 4 == 0:
                self.allreduce(bucket, 4 * 12 * H * H + 8 * H)
                bucket += 1
        for n in self.tree_embedding_bwd:
            run(bwd, n)
        self.allreduce(bucket, V * H)
        # DDP finalize: the compute stream waits for the last all-reduce.
        self.runtime(bwd, "cudaStreamWaitEvent")
        if self.gpu_free[NCCL_STREAM] > self.gpu_free[STREAM]:
            self.gpu_free[STREAM] = self.gpu_free[NCCL_STREAM]
        self.clk[main] = self.clk[bwd] + 4000 + int(self.r() * 4000)
        for x in reversed(h):
            self.py_end(x)

    def allreduce(self, bucket, nelems):
        bwd = self.bwd
        extra = (', "Collective name": "allreduce", "dtype": "Float", '
                 '"In msg nelems": %d, "Out msg nelems": %d, "In split size": "[]", '
                 '"Out split size": "[]", "Global rank start": 0, '
                 '"Global rank stride": 1, "Group size": 8, '
                 '"Process Group Name": "0", "Process Group Description": '
                 '"default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", '
                 '"Rank": %d' % (nelems, nelems, self.rank))

        def comms():
            self.runtime(bwd, "cudaEventRecord")
            self.runtime(bwd, "cudaStreamWaitEvent")
            self.launch(bwd, "nccl", stream=NCCL_STREAM)
            self.runtime(bwd, "cudaEventRecord")

        def outer():
            self.cpu_op_custom(bwd, "record_param_comms", 9400, extra, comms)

        self.cpu_op_custom(bwd, "nccl:all_reduce", 4100, "", outer)

    def optimizer(self):
        main = self.main
        h = [self.py_begin("torch/optim/optimizer.py(479): wrapper")]
        ua = self.user_annotation_begin(main, "Optimizer.step#AdamW.step")
        h2 = [self.py_begin("torch/optim/adamw.py(188): step"),
              self.py_begin("torch/optim/adamw.py(335): adamw"),
              self.py_begin("torch/optim/adamw.py(517): _multi_tensor_adamw")]
        # multi_tensor_apply: at most 110 tensors and 320 blocks of 64K
        # elements per launch
        n_params = 12 * self.layers + 3
        n_elems = self.layers * (12 * H * H + 13 * H) + V * H + 2 * H
        chunks = max((n_params + 109) // 110, -(-n_elems // (320 * 65536)))
        tl = ', "Input Dims": [[], []], "Input type": ["TensorList", "Scalar"]'
        for name, key in ADAM_OPS:
            self.run(main, op(name, 9000 + 40 * n_params, tl,
                              [launch(key) for _ in range(chunks)]))
        for x in reversed(h2):
            self.py_end(x)
        self.user_annotation_end(ua)
        for x in reversed(h):
            self.py_end(x)

    def item(self, pinned=False):
        main = self.main
        h = self.py_begin("<built-in method item of Tensor object at 0x7f5b1c2e8f40>")

        def dense():
            if pinned:
                self.memcpy(main, "Memcpy DtoH (Device -> Pinned)", 4, 0.5)
                self.runtime(main, "cudaStreamSynchronize", wait_stream=STREAM)
            else:
                self.memcpy(main, "Memcpy DtoH (Device -> Pageable)", 4, 0.5,
                            sync=True)
                self.runtime(main, "cudaStreamSynchronize", wait_stream=STREAM)

        def local():
            self.cpu_op_custom(main, "aten::_local_scalar_dense", 4400,
                               ', "Input Dims": [[]], "Input type": ["float"]',
                               dense)

        self.cpu_op_custom(main, "aten::item", 2700,
                           ', "Input Dims": [[]], "Input type": ["float"]', local)
        self.py_end(h)

    def step(self, n):
        main = self.main
        r = self.r
        self.step_gpu = None
        self.step_intervals = []
        self.fwd_seqs = []
        ps = self.user_annotation_begin(main, "ProfilerStep#%d" % n)
        dl = self.user_annotation_begin(
            main, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
        for _ in range(2):
            self.run(main, op("aten::stack", 21000 + int(r() * 30000),
                              inputs([[], []], ["TensorList", "Scalar"]),
                              [op("aten::cat", 14000, inputs([[], []],
                                                             ["TensorList", "Scalar"]))]))
        self.user_annotation_end(dl)
        ht = self.py_begin("train.py(142): train_step")
        self.run(main, to_device([B, S], B * S * 8))
        self.run(main, to_device([B, S], B * S * 8))
        self.forward()
        hz = self.py_begin("torch/optim/optimizer.py(822): zero_grad")
        zg = self.user_annotation_begin(main, "Optimizer.zero_grad#AdamW.zero_grad")
        self.clk[main] += 20000 + int(r() * 20000)
        self.user_annotation_end(zg)
        self.py_end(hz)
        self.backward()
        if r() < 0.25:
            # grad-norm logging: a mid-step host sync
            self.item(pinned=True)
        self.optimizer()
        self.item(pinned=False)
        self.py_end(ht)
        ext = self.user_annotation_end(ps)
        self.step_durs.append(self.clk[main] - ps[0][0])
        # All device work of a step ends before the next step's starts (the
        # step ends with a host sync), so the union can be taken per step.
        busy = 0
        end = -1
        for a, b in sorted(self.step_intervals):
            if a > end:
                busy += b - a
                end = b
            elif b > end:
                busy += b - end
                end = b
        self.device_busy_union += busy
        # gpu_user_annotation mirror of the step on the compute stream
        if self.step_gpu is not None:
            g0, g1 = self.step_gpu
            txt = T_X % ("gpu_user_annotation", "ProfilerStep#%d" % n, DEVICE,
                         STREAM, us(g0), us(g1 - g0), '"External id": %d' % ext)
            self._push_dev(g0, txt)
            self.x("gpu_user_annotation", g1 - g0)
        self.flush()
        self.steps += 1
        # the next ProfilerStep starts where this one ended
        self.clk[main] += 1
        if self.clk[self.bwd] < self.clk[main]:
            self.clk[self.bwd] = self.clk[main]

    def flush(self):
        cpu = self.cpu
        cpu.sort()
        dev = self.dev
        dev.sort()
        parts = [e[2] for e in cpu]
        parts.extend(e[2] for e in dev)
        last = max(cpu[-1][0], dev[-1][0])
        if last > self.last_ts:
            self.last_ts = last
        self.write(",\n".join(parts) + ",\n")
        self.cpu = []
        self.dev = []

    # -- file layout -------------------------------------------------------
    def header(self):
        props = []
        for d in range(8):
            props.append(
                '    {\n      "id": %d, "name": "NVIDIA A100-SXM4-80GB", '
                '"totalGlobalMem": 85097971712,\n'
                '      "computeMajor": 8, "computeMinor": 0,\n'
                '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
                '      "regsPerBlock": 65536, "warpSize": 32,\n'
                '      "sharedMemPerBlock": 49152, "numSms": %d\n'
                '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": '
                '166912, "sharedMemPerMultiprocessor": 167936\n    }' % (d, NUM_SMS))
        dist = ('{"backend": "nccl", "rank": %d, "world_size": 8, "pg_count": 1, '
                '"pg_config": [{"pg_name": "0", "pg_desc": "default_pg", '
                '"backend_config": "cuda:nccl", "pg_size": 8, "ranks": '
                '[0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.20.5"}' % self.rank)
        trace_id = "%032X" % self.rng.getrandbits(128)
        self.write('\n{\n  "schemaVersion": 1,\n  "deviceProperties": [\n%s\n  ],\n'
                   '  "distributedInfo": %s,\n  "cuda_runtime_version": 12010,\n'
                   '  "cuda_driver_version": 12020,\n  "trace_id": "%s",\n'
                   '  "traceEvents": [\n' % (",\n".join(props), dist, trace_id))
        ts = us(self.t_start)
        meta = []

        def m(name, pid, tid, key, value):
            meta.append(T_META % (name, ts, pid, tid, key, value))
            self.count("__metadata")

        m("process_name", self.pid, 0, "name", '"python3"')
        m("process_labels", self.pid, 0, "labels", '"CPU"')
        m("process_sort_index", self.pid, 0, "sort_index", str(self.pid))
        m("process_name", DEVICE, 0, "name", '"python3"')
        m("process_labels", DEVICE, 0, "labels", '"GPU %d"' % DEVICE)
        m("process_sort_index", DEVICE, 0, "sort_index", str(5000000 + DEVICE))
        m("thread_name", self.pid, self.main, "name",
          '"thread %d (python3)"' % self.main)
        m("thread_sort_index", self.pid, self.main, "sort_index", str(self.main))
        m("thread_name", self.pid, self.bwd, "name",
          '"thread %d (pt_autograd_0)"' % self.bwd)
        m("thread_sort_index", self.pid, self.bwd, "sort_index", str(self.bwd))
        for s in (STREAM, NCCL_STREAM):
            m("thread_name", DEVICE, s, "name", '"stream %d "' % s)
            m("thread_sort_index", DEVICE, s, "sort_index", str(s))
        self.write(",\n".join(meta) + ",\n")

    def footer(self):
        end = max(self.last_ts, self.clk[self.main], self.gpu_free[STREAM],
                  self.gpu_free[NCCL_STREAM]) + 1000
        self.count("__instant")
        self.end_ts = end
        self.write('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
                   '    "pid": "", "tid": "", "ts": %s\n  }\n],\n'
                   '  "traceName": "/tmp/profiler/rank%d.%d.pt.trace.json",\n'
                   '  "displayTimeUnit": "ms",\n'
                   '  "baseTimeNanoseconds": %d\n}\n'
                   % (us(end), self.rank, self.base_ns // 1000000, self.base_ns))

    def census(self):
        events = sum(self.counts.values())
        return {
            "generator_version": GEN_VERSION,
            "bytes": self.written,
            "events": events,
            "categories": dict(sorted(self.counts.items())),
            "steps": self.steps,
            "layers": self.layers,
            "kernels": self.kernels,
            "kernel_dur_sum_ns": self.kernel_dur,
            "kernels_per_stream": {str(k): v for k, v in self.stream_kernels.items()},
            "device_busy_ns_per_stream": {str(k): v for k, v in self.stream_busy.items()},
            "x_events": self.x_count,
            "x_dur_sum_ns": self.x_dur,
            "flows": self.flows,
            "memcpy_bytes": self.memcpy_bytes,
            "memcpy_by_name": dict(sorted(self.copies.items())),
            "memset_bytes": self.memset_bytes,
            "device_busy_union_ns": self.device_busy_union,
            "profiler_step_ns": {
                "count": len(self.step_durs),
                "sum": sum(self.step_durs),
                "min": min(self.step_durs) if self.step_durs else 0,
                "max": max(self.step_durs) if self.step_durs else 0,
                "median": sorted(self.step_durs)[len(self.step_durs) // 2]
                if self.step_durs else 0,
            },
            "runtime_calls": dict(sorted(self.runtime_names.items())),
            "pid": self.pid,
            "threads": [self.main, self.bwd],
            "streams": [STREAM, NCCL_STREAM],
            "base_time_ns": self.base_ns,
            "first_ts_ns": self.t_start,
            "end_ts_ns": self.end_ts,
        }


def parse_size(text):
    t = text.strip().upper()
    mult = 1
    for suffix, m in (("K", 10**3), ("M", 10**6), ("G", 10**9), ("T", 10**12)):
        if t.endswith(suffix + "B"):
            t = t[:-1]
        if t.endswith(suffix):
            mult = m
            t = t[:-1]
            break
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError("bad size %r (use e.g. 5M, 100M, 1G)" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return int(value * mult)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Generate a realistic Kineto trace of about SIZE bytes.")
    ap.add_argument("out", help="output file ('-' for stdout)")
    ap.add_argument("size", type=parse_size, help="uncompressed size, e.g. 100M, 1G")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gzip", action="store_true",
                    help="write gzip (level 6) instead of plain JSON")
    ap.add_argument("--layers", type=int, default=16,
                    help="transformer blocks per step (default 16)")
    ap.add_argument("--flow-frac", type=float, default=0.27,
                    help="fraction of launches with ac2g flow events (default 0.27)")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--census-json", metavar="PATH",
                    help="also write the census as JSON to PATH")
    ap.add_argument("--quiet", action="store_true", help="no census on stderr")
    a = ap.parse_args(argv)
    if a.layers < 1:
        ap.error("--layers must be at least 1")

    started = time.monotonic()
    if a.out == "-":
        raw = sys.stdout.buffer
        close_raw = False
    else:
        raw = open(a.out, "wb")
        close_raw = True
    if a.gzip:
        sink = gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                             compresslevel=6, mtime=0)
    else:
        sink = raw

    class Text:
        """Buffered ASCII text writer on top of the binary sink."""

        def __init__(self, f):
            self.f = f
            self.buf = []
            self.n = 0

        def write(self, s):
            self.buf.append(s)
            self.n += len(s)
            if self.n >= 1 << 20:
                self.flush()

        def flush(self):
            if self.buf:
                self.f.write("".join(self.buf).encode("ascii"))
                self.buf = []
                self.n = 0

    out = Text(sink)
    g = Generator(out, a.seed, a.layers, a.flow_frac, a.rank)
    g.header()
    step_no = 5 + a.seed % 7
    tail = 400
    per_step = 0
    while True:
        before = g.written
        g.step(step_no)
        step_no += 1
        per_step = g.written - before
        # stop when another step would overshoot by more than half a step
        if g.written + tail + per_step // 2 >= a.size:
            break
    g.footer()
    out.flush()
    if a.gzip:
        sink.close()
    if close_raw:
        raw.close()
    else:
        raw.flush()
    elapsed = time.monotonic() - started
    census = g.census()
    census.update({"seed": a.seed, "flow_frac": a.flow_frac,
                   "requested_size": a.size, "gzip": a.gzip,
                   "generation_s": round(elapsed, 3)})
    if a.census_json:
        with open(a.census_json, "w") as f:
            json.dump(census, f, indent=2, sort_keys=True)
            f.write("\n")
    if not a.quiet:
        report(census, a.out, elapsed, sys.stderr)
    return 0


def report(c, out, elapsed, f):
    ev = c["events"]
    p = lambda *x: print(*x, file=f)  # noqa: E731
    p("gen_kineto_trace: %s: %s bytes, %s events (%.0f B/event), %d steps, "
      "%.1f s (%.1f MB/s)" % (out, format(c["bytes"], ","), format(ev, ","),
                             c["bytes"] / max(ev, 1), c["steps"], elapsed,
                             c["bytes"] / 1e6 / max(elapsed, 1e-9)))
    for cat, n in sorted(c["categories"].items(), key=lambda kv: -kv[1]):
        p("  %-22s %12s  %5.1f%%" % (cat, format(n, ","), 100.0 * n / ev))
    p("  kernels %s (stream 7: %s, stream 21: %s), kernel dur sum %s ns = %.3f us"
      % (format(c["kernels"], ","), format(c["kernels_per_stream"]["7"], ","),
         format(c["kernels_per_stream"]["21"], ","),
         format(c["kernel_dur_sum_ns"], ","), c["kernel_dur_sum_ns"] / 1000.0))
    p("  X events %s, X dur sum %.3f us; flows %s; steps %d (median %.3f ms)"
      % (format(c["x_events"], ","), c["x_dur_sum_ns"] / 1000.0,
         format(c["flows"], ","), c["steps"],
         c["profiler_step_ns"]["median"] / 1e6))
    p("  device 0 busy (union of streams) %s ns; memcpy %s (%s bytes), "
      "memset bytes %s" % (format(c["device_busy_union_ns"], ","),
                           format(sum(c["memcpy_by_name"].values()), ","),
                           format(c["memcpy_bytes"], ","),
                           format(c["memset_bytes"], ",")))


if __name__ == "__main__":
    sys.exit(main())
