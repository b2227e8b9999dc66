// XLA FFI handlers for tests/test_ffi.py, written against the headers jaxlib
// ships (jax.ffi.include_dir()) exactly as a user's extension would be.
#include <cmath>
#include <cstdint>
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
