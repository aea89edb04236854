// The complex formulas of codegen/ttir/complex_math.h evaluated on the host:
// the same template the emitter instantiates with TTIR tiles, instantiated
// here with float and double and the C math library standing in for
// libdevice. Checked against std::complex (glibc's C99 Annex G functions,
// which numpy's follow) over a grid of values, and against edge values worked
// by hand (signed zeros, infinities, NaN, tiny and huge magnitudes). A wrong
// formula in the emitter is a wrong formula here.
#include "codegen/ttir/complex_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace jft::codegen::ttir::cmath {
namespace {

// The arithmetic of complex_math.h on host scalars; a condition is 1 or 0.
template <class T>
struct Host {
  T add(T a, T b) { return a + b; }
  T sub(T a, T b) { return a - b; }
  T mul(T a, T b) { return a * b; }
  T div(T a, T b) { return a / b; }
  T abs(T a) { return std::fabs(a); }
  T neg(T a) { return a * T(-1); }
  T sqrt(T a) { return std::sqrt(a); }
  T constant(T, double v) { return static_cast<T>(v); }
  bool wide(T) const { return sizeof(T) == 8; }
  // arith.cmpf's predicates: ordered ones are false on NaN, une and uno true.
  T cmp(std::string_view p, T a, T b) {
    const bool nan = std::isnan(a) || std::isnan(b);
    bool r = false;
    if (p == "oeq") r = !nan && a == b;
    if (p == "une") r = nan || a != b;
    if (p == "oge") r = !nan && a >= b;
    if (p == "ogt") r = !nan && a > b;
    if (p == "ole") r = !nan && a <= b;
    if (p == "olt") r = !nan && a < b;
    if (p == "uno") r = nan;
    static const std::string_view known[] = {"oeq", "une", "oge", "ogt",
                                             "ole", "olt", "uno"};
    if (std::find(std::begin(known), std::end(known), p) == std::end(known))
      ADD_FAILURE() << "predicate " << p;
    return r ? T(1) : T(0);
  }
  T signbit(T a) { return std::signbit(a) ? T(1) : T(0); }
  T select(T c, T a, T b) { return c != T(0) ? a : b; }
  T both(T a, T b) { return (a != T(0) && b != T(0)) ? T(1) : T(0); }
  T either(T a, T b) { return (a != T(0) || b != T(0)) ? T(1) : T(0); }
  // A library whose hypot lets a NaN part win over an infinite one (C99
  // says +inf); complex_math.h must give C99's values with it too.
  bool nan_hypot = false;
  T call(std::string_view f, const std::vector<T>& x) {
    if (f == "hypot" && nan_hypot && (std::isnan(x[0]) || std::isnan(x[1])))
      return std::numeric_limits<T>::quiet_NaN();
    if (f == "hypot") return std::hypot(x[0], x[1]);
    if (f == "atan2") return std::atan2(x[0], x[1]);
    if (f == "pow") return std::pow(x[0], x[1]);
    if (f == "exp") return std::exp(x[0]);
    if (f == "expm1") return std::expm1(x[0]);
    if (f == "log") return std::log(x[0]);
    if (f == "log1p") return std::log1p(x[0]);
    if (f == "sin") return std::sin(x[0]);
    if (f == "cos") return std::cos(x[0]);
    if (f == "tan") return std::tan(x[0]);
    if (f == "sinh") return std::sinh(x[0]);
    if (f == "cosh") return std::cosh(x[0]);
    ADD_FAILURE() << "math function " << f;
    return T(0);
  }
};

using C = std::complex<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
using Fn = Cx<T> (*)(Host<T>&, const Cx<T>&);

template <class T>
C eval(Fn<T> f, C z) {
  Host<T> h;
  const Cx<T> r = f(h, Cx<T>{static_cast<T>(z.real()), static_cast<T>(z.imag())});
  return {static_cast<double>(r.re), static_cast<double>(r.im)};
}

// |got - want| <= tol |want| (normwise), or both parts equal as special
// values (same infinities, NaN in the same parts).
::testing::AssertionResult close(C got, C want, double tol) {
  auto special = [](double v) { return !std::isfinite(v); };
  if (special(want.real()) || special(want.imag()) || special(got.real()) ||
      special(got.imag())) {
    auto same = [](double g, double w) {
      return (std::isnan(g) && std::isnan(w)) || g == w ||
             (std::isfinite(g) && std::isfinite(w) && std::fabs(g - w) <= 1e-300);
    };
    if (same(got.real(), want.real()) && same(got.imag(), want.imag()))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << " want " << want;
  }
  const double err = std::abs(got - want), scale = std::abs(want);
  if (err <= tol * scale || err <= 1e-300) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << " want " << want
                                       << " (relative error " << err / scale << ")";
}

std::vector<C> grid(const std::vector<double>& parts) {
  std::vector<C> zs;
  for (double re : parts)
    for (double im : parts) zs.emplace_back(re, im);
  return zs;
}

const std::vector<double> kParts = {-20,  -3.7, -1,  -0.3, -1e-8, 0,   1e-8,
                                    0.45, 1,    2.5, 7,    20,    -0.0};

struct Case {
  const char* name;
  Fn<double> f64;
  Fn<float> f32;
  C (*ref)(C);
};

// glibc's C99 functions through std::complex.
const Case kCases[] = {
    {"sqrt", sqrt<Host<double>, double>, sqrt<Host<float>, float>,
     [](C z) { return std::sqrt(z); }},
    {"rsqrt", rsqrt<Host<double>, double>, rsqrt<Host<float>, float>,
     [](C z) { return 1.0 / std::sqrt(z); }},
    {"exp", exp<Host<double>, double>, exp<Host<float>, float>,
     [](C z) { return std::exp(z); }},
    {"log", log<Host<double>, double>, log<Host<float>, float>,
     [](C z) { return std::log(z); }},
    {"sin", sin<Host<double>, double>, sin<Host<float>, float>,
     [](C z) { return std::sin(z); }},
    {"cos", cos<Host<double>, double>, cos<Host<float>, float>,
     [](C z) { return std::cos(z); }},
    {"tan", tan<Host<double>, double>, tan<Host<float>, float>,
     [](C z) { return std::tan(z); }},
    {"tanh", tanh<Host<double>, double>, tanh<Host<float>, float>,
     [](C z) { return std::tanh(z); }},
    {"sign", sign<Host<double>, double>, sign<Host<float>, float>,
     [](C z) { return z == C(0) ? C(0) : z / std::abs(z); }},
    {"logistic", logistic<Host<double>, double>, logistic<Host<float>, float>,
     [](C z) { return 1.0 / (1.0 + std::exp(-z)); }},
    // e^z - 1 and log(1 + z) from their definitions in long double (the
    // cancellation for small z is then below double's rounding).
    {"expm1", expm1<Host<double>, double>, expm1<Host<float>, float>,
     [](C z) {
       const long double x = z.real(), y = z.imag();
       const long double e = std::expm1(x), s = std::sin(y / 2);
       return C(static_cast<double>(e * std::cos(y) - 2 * s * s),
                static_cast<double>(std::exp(x) * std::sin(y)));
     }},
    {"log1p", log1p<Host<double>, double>, log1p<Host<float>, float>,
     [](C z) {
       const long double x = z.real(), y = z.imag(), m = x * (x + 2) + y * y;
       const long double re =
           std::fabs(m) < 0.5L ? std::log1p(m) / 2 : std::log(std::hypot(1 + x, y));
       return C(static_cast<double>(re), static_cast<double>(std::atan2(y, 1 + x)));
     }},
};

TEST(ComplexMath, DoubleFormulasMatchTheCLibraryOverAGrid) {
  for (const Case& c : kCases)
    for (C z : grid(kParts)) {
      if (std::string(c.name) == "rsqrt" && z == C(0)) continue;  // an edge below
      EXPECT_TRUE(close(eval<double>(c.f64, z), c.ref(z), 1e-13)) << c.name << z;
    }
}

TEST(ComplexMath, FloatFormulasMatchTheCLibraryOverAGrid) {
  for (const Case& c : kCases)
    for (C z : grid(kParts)) {
      if (std::string(c.name) == "rsqrt" && z == C(0)) continue;
      // The input rounded to float first: the reference sees what f32 sees.
      const C zf(static_cast<float>(z.real()), static_cast<float>(z.imag()));
      const C want = c.ref(zf);
      if (std::abs(want) > 1e37 || (std::abs(want) < 1e-30 && want != C(0)))
        continue;  // beyond float's range
      EXPECT_TRUE(close(eval<float>(c.f32, zf), want, 2e-6)) << c.name << zf;
    }
}

bool negZero(double v) {
  return v == 0 && std::signbit(v);
}
bool posZero(double v) {
  return v == 0 && !std::signbit(v);
}

// The branch cut of sqrt: the sign of a zero imaginary part picks the side.
TEST(ComplexMath, SqrtEdges) {
  for (auto f : {+[](C z) { return eval<double>(sqrt<Host<double>, double>, z); },
                 +[](C z) { return eval<float>(sqrt<Host<float>, float>, z); }}) {
    C r = f(C(-1, -0.0));
    EXPECT_TRUE(posZero(r.real()) && r.imag() == -1) << r;
    r = f(C(-1, 0.0));
    EXPECT_TRUE(posZero(r.real()) && r.imag() == 1) << r;
    r = f(C(-4, -0.0));
    EXPECT_TRUE(posZero(r.real()) && r.imag() == -2) << r;
    r = f(C(0.0, -0.0));
    EXPECT_TRUE(posZero(r.real()) && negZero(r.imag())) << r;
    r = f(C(-0.0, 0.0));
    EXPECT_TRUE(posZero(r.real()) && posZero(r.imag())) << r;
    EXPECT_TRUE(close(f(C(0, kInf)), C(kInf, kInf), 0));
    EXPECT_TRUE(close(f(C(kNaN, -kInf)), C(kInf, -kInf), 0));
    EXPECT_TRUE(close(f(C(-kInf, 1)), C(0, kInf), 0));
    EXPECT_TRUE(close(f(C(kInf, -1)), C(kInf, -0.0), 0));
    EXPECT_TRUE(std::isnan(f(C(kNaN, 0)).real()) && std::isnan(f(C(kNaN, 0)).imag()));
    EXPECT_TRUE(close(f(C(1e30, 1e30)), std::sqrt(C(1e30, 1e30)), 1e-6));
  }
  // Near the top of the range |x| + |z| overflows: the scaled form.
  const C big(1e308, 1e308), r = eval<double>(sqrt<Host<double>, double>, big);
  EXPECT_TRUE(close(r, C(1.0986841134678100e154, 4.5508986056222734e153), 1e-13)) << r;
  const C bigf(3e38, -3e38), rf = eval<float>(sqrt<Host<float>, float>, bigf);
  EXPECT_TRUE(
      close(rf, std::sqrt(C(static_cast<float>(3e38), static_cast<float>(-3e38))), 1e-6))
      << rf;
}

TEST(ComplexMath, TanhAndTanEdges) {
  auto th = [](C z) { return eval<double>(tanh<Host<double>, double>, z); };
  auto thf = [](C z) { return eval<float>(tanh<Host<float>, float>, z); };
  // Large |x|: +-1 and a tiny imaginary part, no inf / inf.
  EXPECT_TRUE(close(th(C(30, 1)), C(1, 1.5924545408982667e-26), 1e-13)) << th(C(30, 1));
  EXPECT_TRUE(close(th(C(-400, 1)), C(-1, 0), 0));
  // The tiny imaginary part itself, not only relative to |tanh z| = 1.
  EXPECT_NEAR(th(C(30, 1)).imag() / 1.5924545408982667e-26, 1, 1e-13);
  EXPECT_NEAR(thf(C(12, 1)).imag() / std::tanh(C(12, 1)).imag(), 1, 1e-5);
  EXPECT_NEAR(th(C(-25, -2)).imag() / std::tanh(C(-25, -2)).imag(), 1, 1e-13);
  EXPECT_TRUE(close(thf(C(50, 1)),
                    C(1, 4 * std::sin(1.0) * std::cos(1.0) * std::exp(-100.0)), 1e-5));
  EXPECT_TRUE(close(thf(C(1e30, 1e30)), C(1, 0), 0));
  EXPECT_TRUE(close(th(C(kInf, 1)), C(1, 0), 0));
  EXPECT_TRUE(close(th(C(-kInf, kInf)), C(-1, 0), 0));
  EXPECT_TRUE(close(th(C(30, kInf)), C(kNaN, kNaN), 0));
  // x = 0: purely imaginary; y = 0: purely real (C99).
  EXPECT_TRUE(close(th(C(0, kInf)), C(0, kNaN), 0));
  EXPECT_TRUE(close(th(C(kNaN, 0)), C(kNaN, 0), 0));
  EXPECT_TRUE(close(th(C(0, kNaN)), C(0, kNaN), 0));
  EXPECT_TRUE(
      close(th(C(1e-30, 2)), C(5.7743992040419175e-30, -2.185039863261519), 1e-13));
  // tan through tanh(iz): tan(x + inf i) = 0 + i, tan(inf + 0i) = NaN + 0i.
  auto tn = [](C z) { return eval<double>(tan<Host<double>, double>, z); };
  EXPECT_TRUE(close(tn(C(1, kInf)), C(0, 1), 0));
  EXPECT_TRUE(close(tn(C(kInf, 0)), C(kNaN, 0), 0));
  EXPECT_TRUE(close(tn(C(1e30, 1e30)), C(0, 1), 1e-13));
}

TEST(ComplexMath, Expm1AndLog1pAreAccurateForSmallZ) {
  auto em = [](C z) { return eval<double>(expm1<Host<double>, double>, z); };
  auto lp = [](C z) { return eval<double>(log1p<Host<double>, double>, z); };
  // exp(z) - 1 would lose the real part entirely here.
  EXPECT_TRUE(close(em(C(1e-20, 1e-20)), C(1e-20, 1e-20), 1e-14)) << em(C(1e-20, 1e-20));
  EXPECT_TRUE(close(em(C(0, 1e-10)), C(-5e-21, 1e-10), 1e-14)) << em(C(0, 1e-10));
  // log|1 + z| = log1p(2x + x^2 + y^2) / 2, not log(hypot(1 + x, y)) = 0.
  EXPECT_TRUE(close(lp(C(1e-20, 1e-20)), C(1e-20, 1e-20), 1e-14)) << lp(C(1e-20, 1e-20));
  EXPECT_TRUE(close(lp(C(0, 1e-10)), C(5e-21, 1e-10), 1e-14)) << lp(C(0, 1e-10));
  auto lpf = [](C z) { return eval<float>(log1p<Host<float>, float>, z); };
  EXPECT_TRUE(close(lpf(C(1e-10, 1e-10)), C(1e-10, 1e-10), 1e-6)) << lpf(C(1e-10, 1e-10));
  // Edges: the pole at -1, infinities, NaN (as numpy's log1p and expm1).
  EXPECT_TRUE(close(lp(C(-1, -0.0)), C(-kInf, -0.0), 0));
  EXPECT_TRUE(close(lp(C(-kInf, 1)), C(kInf, M_PI), 1e-15));
  EXPECT_TRUE(close(lp(C(0, kNaN)), C(kNaN, kNaN), 0));
  EXPECT_TRUE(close(lp(C(1, 1e308)), C(709.1962086421661, M_PI / 2), 1e-14));
  EXPECT_TRUE(close(em(C(-kInf, 0)), C(-1, 0), 0));
  EXPECT_TRUE(close(em(C(kInf, 0)), C(kInf, kNaN), 0));
  EXPECT_TRUE(close(em(C(kInf, 1)), C(kInf, kInf), 0));
}

TEST(ComplexMath, ExpKeepsAZeroImaginaryPart) {
  auto e = [](C z) { return eval<double>(exp<Host<double>, double>, z); };
  EXPECT_TRUE(close(e(C(kInf, 0)), C(kInf, 0), 0));
  EXPECT_TRUE(close(e(C(kNaN, 0)), C(kNaN, 0), 0));
  EXPECT_TRUE(close(e(C(-kInf, 1)), C(0, 0), 0));
}

TEST(ComplexMath, SinCosEdges) {
  auto s = [](C z) { return eval<double>(sin<Host<double>, double>, z); };
  auto c = [](C z) { return eval<double>(cos<Host<double>, double>, z); };
  EXPECT_TRUE(close(s(C(0, kInf)), C(0, kInf), 0));
  EXPECT_TRUE(close(s(C(kInf, 0)), C(kNaN, 0), 0));
  EXPECT_TRUE(close(s(C(0, kNaN)), C(0, kNaN), 0));
  EXPECT_TRUE(close(s(C(1, kInf)), C(kInf, kInf), 0));
  EXPECT_TRUE(close(c(C(0, kInf)), C(kInf, -0.0), 0));
  EXPECT_TRUE(close(c(C(kInf, 0)), C(kNaN, 0), 0));
  EXPECT_TRUE(close(c(C(0, kNaN)), C(kNaN, 0), 0));
  EXPECT_TRUE(negZero(c(C(0, 1)).imag()));
  EXPECT_TRUE(close(c(C(1, kInf)), C(kInf, -kInf), 0));
}

TEST(ComplexMath, RsqrtEdges) {
  auto r = [](C z) { return eval<double>(rsqrt<Host<double>, double>, z); };
  EXPECT_TRUE(close(r(C(0, 0)), C(kInf, kNaN), 0));
  EXPECT_TRUE(close(r(C(kInf, 0)), C(0, -0.0), 0));
  EXPECT_TRUE(close(r(C(-4, -0.0)), C(0, 0.5), 1e-15)) << r(C(-4, -0.0));
  // |z| beyond the range: conj(s) / |s| / |s| does not overflow.
  EXPECT_TRUE(close(r(C(1e308, 1e308)), 1.0 / std::sqrt(C(1e308, 1e308)), 1e-13));
}

// An infinite part makes |z| infinite even when the other is NaN (C99,
// numpy): log(inf + NaN i) = inf + NaN i (test_ops.py's log edge that came out
// NaN on the H200), whatever the library's hypot does with (inf, NaN).
TEST(ComplexMath, InfiniteWithNaNIsInfiniteWhateverTheLibrarysHypot) {
  for (bool nan_hypot : {false, true}) {
    auto run = [&](auto fn, C z) {
      Host<double> h;
      h.nan_hypot = nan_hypot;
      const Cx<double> r = fn(h, Cx<double>{z.real(), z.imag()});
      return C(r.re, r.im);
    };
    auto lg = [&](C z) { return run(log<Host<double>, double>, z); };
    auto lp = [&](C z) { return run(log1p<Host<double>, double>, z); };
    auto sq = [&](C z) { return run(sqrt<Host<double>, double>, z); };
    auto ab = [&](C z) {
      Host<double> h;
      h.nan_hypot = nan_hypot;
      return absolute(h, Cx<double>{z.real(), z.imag()});
    };
    // clog(+-inf + NaN i) = +inf + NaN i, clog(NaN +- inf i) = +inf + NaN i.
    EXPECT_TRUE(close(lg(C(kInf, kNaN)), C(kInf, kNaN), 0)) << nan_hypot;
    EXPECT_TRUE(close(lg(C(-kInf, kNaN)), C(kInf, kNaN), 0)) << nan_hypot;
    EXPECT_TRUE(close(lg(C(kNaN, -kInf)), C(kInf, kNaN), 0)) << nan_hypot;
    // log(1 + z) with 1 + z = inf + NaN i.
    EXPECT_TRUE(close(lp(C(kInf, kNaN)), C(kInf, kNaN), 0)) << nan_hypot;
    // csqrt(+inf + NaN i) = +inf + NaN i.
    EXPECT_TRUE(close(sq(C(kInf, kNaN)), C(kInf, kNaN), 0)) << nan_hypot;
    EXPECT_EQ(ab(C(kInf, kNaN)), kInf) << nan_hypot;
    EXPECT_EQ(ab(C(kNaN, -kInf)), kInf) << nan_hypot;
    EXPECT_TRUE(std::isnan(ab(C(kNaN, 1))));
  }
}

TEST(ComplexMath, PowerAndCbrt) {
  auto pw = [](C z, C w) {
    Host<double> h;
    const Cx<double> r =
        power(h, Cx<double>{z.real(), z.imag()}, Cx<double>{w.real(), w.imag()});
    return C(r.re, r.im);
  };
  EXPECT_TRUE(close(pw(C(2, 1), C(3, 0)), C(2, 11), 1e-14)) << pw(C(2, 1), C(3, 0));
  EXPECT_TRUE(close(pw(C(0, 1), C(0, 1)), C(std::exp(-M_PI / 2), 0), 1e-14));  // i^i
  EXPECT_TRUE(close(pw(C(-8, 0), C(1.0 / 3, 0)), C(1, std::sqrt(3.0)), 1e-14));
  EXPECT_TRUE(close(pw(C(0, 0), C(0, 0)), C(1, 0), 0));
  EXPECT_TRUE(close(pw(C(0, 0), C(2.5, 0)), C(0, 0), 0));
  EXPECT_TRUE(close(pw(C(0, 0), C(-1, 0)), C(kInf, kNaN), 0));
  EXPECT_TRUE(close(pw(C(0, 0), C(1, 1)), C(kNaN, kNaN), 0));
  for (C z : {C(0.3, 0.4), C(-2, 1), C(1.5, -2), C(-0.5, -0.5)})
    for (C w : {C(2, 0), C(-1, 0), C(0.5, 0.5), C(-1.5, 2), C(1.0 / 3, 0)})
      EXPECT_TRUE(close(pw(z, w), std::exp(w * std::log(z)), 1e-13)) << z << w;
  auto cb = [](C z) { return eval<double>(cbrt<Host<double>, double>, z); };
  EXPECT_TRUE(close(cb(C(-8, 0)), C(1, std::sqrt(3.0)), 1e-14));
  EXPECT_TRUE(close(cb(C(27, 0)), C(3, 0), 1e-14));
  EXPECT_TRUE(close(cb(C(0, 0)), C(0, 0), 0));
}

TEST(ComplexMath, SignAndArithmetic) {
  auto sg = [](C z) { return eval<double>(sign<Host<double>, double>, z); };
  EXPECT_TRUE(close(sg(C(3, -4)), C(0.6, -0.8), 1e-15));
  EXPECT_TRUE(close(sg(C(0, 0)), C(0, 0), 0));
  EXPECT_TRUE(close(sg(C(kNaN, 1)), C(kNaN, kNaN), 0));
  Host<double> h;
  const Cx<double> m = multiply(h, Cx<double>{1, 2}, Cx<double>{3, -4});
  EXPECT_EQ(C(m.re, m.im), C(11, 2));
  const Cx<double> q = divide(h, Cx<double>{11, 2}, Cx<double>{3, -4});
  EXPECT_TRUE(close(C(q.re, q.im), C(1, 2), 1e-15));
  // Smith's scaling: no overflow of c^2 + d^2.
  const Cx<double> big = divide(h, Cx<double>{1e300, 1e300}, Cx<double>{1e300, -1e300});
  EXPECT_TRUE(close(C(big.re, big.im), C(0, 1), 1e-15));
}

}  // namespace
}  // namespace jft::codegen::ttir::cmath
