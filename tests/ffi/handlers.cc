// XLA FFI handlers for tests/test_ffi.py, written against the headers jaxlib
// ships (jax.ffi.include_dir()) exactly as a user's extension would be.
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = x + 1 over any shape.
static ffi::Error AddOneImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] + 1.0f;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestAddOne, AddOneImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// (a, b) -> (a + b, a * b).
static ffi::Error SumProdImpl(ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b, ffi::ResultBuffer<ffi::F32> sum,
                              ffi::ResultBuffer<ffi::F32> prod) {
  if (a.element_count() != b.element_count()) return ffi::Error::InvalidArgument("operand sizes differ");
  for (size_t i = 0; i < a.element_count(); ++i) {
    sum->typed_data()[i] = a.typed_data()[i] + b.typed_data()[i];
    prod->typed_data()[i] = a.typed_data()[i] * b.typed_data()[i];
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestSumProd, SumProdImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Writes what it was given into out: [i, f, d, sum(arr), len(arr), len(s),
// s[0], flag, dict["k"]].
static ffi::Error AttrsImpl(ffi::ResultBuffer<ffi::F32> out, int64_t i, float f, double d,
                            ffi::Span<const int64_t> arr, std::string_view s, bool flag, ffi::Dictionary dict) {
  if (out->element_count() != 9) return ffi::Error::InvalidArgument("out must have 9 elements");
  double sum = 0;
  for (int64_t v : arr) sum += static_cast<double>(v);
  auto k = dict.get<int32_t>("k");
  if (k.has_error()) return k.error();
  float* o = out->typed_data();
  o[0] = static_cast<float>(i);
  o[1] = f;
  o[2] = static_cast<float>(d);
  o[3] = static_cast<float>(sum);
  o[4] = static_cast<float>(arr.size());
  o[5] = static_cast<float>(s.size());
  o[6] = s.empty() ? -1 : static_cast<float>(s[0]);
  o[7] = flag ? 1 : 0;
  o[8] = static_cast<float>(*k);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestAttrs, AttrsImpl,
                              ffi::Ffi::Bind()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int64_t>("i")
                                  .Attr<float>("f")
                                  .Attr<double>("d")
                                  .Attr<ffi::Span<const int64_t>>("arr")
                                  .Attr<std::string_view>("s")
                                  .Attr<bool>("flag")
                                  .Attr<ffi::Dictionary>("dict"));

// Copies x, refusing negative first elements with an error message.
static ffi::Error CheckedImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (x.element_count() > 0 && x.typed_data()[0] < 0)
    return ffi::Error::InvalidArgument("gojax test handler: x[0] is negative");
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestChecked, CheckedImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Stages: instantiate keeps the "scale" attribute as state, execute
// multiplies by it.
struct Scale {
  static ffi::TypeId id;
  float value;
};
ffi::TypeId Scale::id = {};

static XLA_FFI_TypeInfo scale_info = ffi::MakeTypeInfo<Scale>();

extern "C" ffi::TypeId* GojaxTestScaleTypeId() { return &Scale::id; }
extern "C" XLA_FFI_TypeInfo* GojaxTestScaleTypeInfo() { return &scale_info; }

static ffi::ErrorOr<std::unique_ptr<Scale>> ScaleInstantiate(float scale) {
  return std::make_unique<Scale>(Scale{scale});
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestScaleInstantiate, ScaleInstantiate,
                              ffi::Ffi::BindInstantiate().Attr<float>("scale"));

// The execute stage binds every attribute of the call, so it takes scale too.
static ffi::Error ScaleExecute(Scale* state, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y, float) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * state->value;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestScaleExecute, ScaleExecute,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::State<Scale>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("scale"));

// Squares x in chunks, each on a task of the runtime's thread pool.
static ffi::Error PoolImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (pool.num_threads() < 1) return ffi::Error::Internal("thread pool reports no threads");
  size_t n = x.element_count();
  float* tmp = y->typed_data();
  const float* in = x.typed_data();
  constexpr size_t kChunks = 4;
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;
  for (size_t c = 0; c < kChunks; ++c) {
    pool.Schedule([&, c] {
      for (size_t i = c * n / kChunks; i < (c + 1) * n / kChunks; ++i) tmp[i] = in[i] * in[i];
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done == kChunks; });
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestPool, PoolImpl,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Reverses x through 64-byte-aligned scratch memory from the runtime (which
// XLA:CPU does not offer).
static ffi::Error ScratchImpl(ffi::ScratchAllocator scratch, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  size_t n = x.element_count();
  auto mem = scratch.Allocate(n * sizeof(float) + 1, 64);
  if (!mem.has_value()) return ffi::Error::Internal("no scratch memory");
  if (reinterpret_cast<uintptr_t>(*mem) % 64 != 0) return ffi::Error::Internal("scratch memory is misaligned");
  float* tmp = static_cast<float*>(*mem);
  for (size_t i = 0; i < n; ++i) tmp[n - 1 - i] = x.typed_data()[i];
  for (size_t i = 0; i < n; ++i) y->typed_data()[i] = tmp[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestScratch, ScratchImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ScratchAllocator>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Prepare and initialize stages each leave a state the execute stage reads:
// y = x * (prepared) + (initialized), from the "offset" attribute.
struct Prep {
  static ffi::TypeId id;
  float mul;
};
ffi::TypeId Prep::id = {};
struct Init {
  static ffi::TypeId id;
  float add;
};
ffi::TypeId Init::id = {};
static XLA_FFI_TypeInfo prep_info = ffi::MakeTypeInfo<Prep>();
static XLA_FFI_TypeInfo init_info = ffi::MakeTypeInfo<Init>();
extern "C" ffi::TypeId* GojaxTestPrepTypeId() { return &Prep::id; }
extern "C" XLA_FFI_TypeInfo* GojaxTestPrepTypeInfo() { return &prep_info; }
extern "C" ffi::TypeId* GojaxTestInitTypeId() { return &Init::id; }
extern "C" XLA_FFI_TypeInfo* GojaxTestInitTypeInfo() { return &init_info; }

static ffi::ErrorOr<std::unique_ptr<Prep>> StagesPrepare(float offset) {
  return std::make_unique<Prep>(Prep{3.0f});
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestStagesPrepare, StagesPrepare, ffi::Ffi::BindPrepare().Attr<float>("offset"));

static ffi::ErrorOr<std::unique_ptr<Init>> StagesInitialize(float offset) {
  return std::make_unique<Init>(Init{offset});
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestStagesInitialize, StagesInitialize,
                              ffi::Ffi::BindInitialize().Attr<float>("offset"));

static ffi::Error StagesExecute(Prep* p, Init* i, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y, float) {
  for (size_t k = 0; k < x.element_count(); ++k) y->typed_data()[k] = x.typed_data()[k] * p->mul + i->add;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestStagesExecute, StagesExecute,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::Prepared<Prep>>()
                                  .Ctx<ffi::Initialized<Init>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("offset"));

// Reads user data of type Scale from the execution context; JAX attaches
// none of that type, so the call fails on every runtime.
static ffi::Error UserDataImpl(Scale* s, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < y->element_count(); ++i) y->typed_data()[i] = s->value;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestUserData, UserDataImpl,
                              ffi::Ffi::Bind().Ctx<ffi::UserData<Scale>>().Ret<ffi::Buffer<ffi::F32>>());

// Copies the first bytes of its operand's memory as the runtime laid it
// out (sub-byte types: how the elements are packed).
static ffi::Error RawBytesImpl(ffi::AnyBuffer x, ffi::ResultBuffer<ffi::U8> y) {
  if (y->element_count() > x.size_bytes()) return ffi::Error::InvalidArgument("operand has fewer bytes than result");
  const uint8_t* p = static_cast<const uint8_t*>(x.untyped_data());
  for (size_t i = 0; i < y->element_count(); ++i) y->typed_data()[i] = p[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestRawBytes, RawBytesImpl,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::Buffer<ffi::U8>>());

// y = x byte for byte, whatever the element type (sub-byte types: as
// packed by the runtime).
static ffi::Error CopyBytesImpl(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  if (x.size_bytes() != y->size_bytes()) return ffi::Error::InvalidArgument("operand and result sizes differ");
  std::memcpy(y->untyped_data(), x.untyped_data(), x.size_bytes());
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestCopyBytes, CopyBytesImpl,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

// Writes which execution and device it runs for: y = {device ordinal, low
// and high 32 bits of the run id}; x (any f32) orders it after its input.
static ffi::Error RunInfoImpl(ffi::RunId run, int32_t ordinal, ffi::Buffer<ffi::F32>,
                              ffi::ResultBuffer<ffi::S32> y) {
  if (y->element_count() != 3) return ffi::Error::InvalidArgument("want s32[3]");
  uint64_t id = static_cast<uint64_t>(run.run_id);
  y->typed_data()[0] = ordinal;
  y->typed_data()[1] = static_cast<int32_t>(static_cast<uint32_t>(id));
  y->typed_data()[2] = static_cast<int32_t>(static_cast<uint32_t>(id >> 32));
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestRunInfo, RunInfoImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::RunId>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::S32>>());

// An asynchronous handler: y = 3 * x computed on a pool task, completing a
// future; a negative x[0] completes it with an error instead.
static ffi::Future AsyncImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  ffi::Promise promise;
  ffi::Future future(promise);
  const float* in = x.typed_data();
  float* out = y->typed_data();
  size_t n = x.element_count();
  pool.Schedule([promise, in, out, n]() mutable {
    if (n > 0 && in[0] < 0) {
      promise.SetError(ffi::Error::InvalidArgument("async handler: x[0] is negative"));
      return;
    }
    for (size_t i = 0; i < n; ++i) out[i] = 3 * in[i];
    promise.SetAvailable();
  });
  return future;
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(GojaxTestAsync, AsyncImpl,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
