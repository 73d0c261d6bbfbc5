#pragma once
// BRAID_HOST_DEVICE marks the scalar math that CPU and CUDA kernels share (src/op/math/): the
// functions are __host__ __device__ when nvcc compiles them into a .cu file, plain inline
// functions in the C++ sources. They call std:: math functions, which CUDA provides on the
// device too.
#if defined(__CUDACC__)
#define BRAID_HOST_DEVICE __host__ __device__ inline
#else
#define BRAID_HOST_DEVICE inline
#endif
