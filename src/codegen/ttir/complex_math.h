// Complex functions written once over an arithmetic on real parts, so that
// the formula the emitter writes as TTIR (complex_emitter.cc, where a value
// is a tile) is the very formula a test evaluates on the host (where a value
// is a float or double): a wrong formula fails the host test.
//
// `A` supplies, on values `V` of one real type (f32 or f64):
//   add sub mul div (V, V); abs neg sqrt (V); call(name, {V...}) for the C
//   math functions (hypot exp expm1 log log1p sin cos tan sinh cosh atan2
//   pow); constant(like, double); wide(like) (f64);
//   cmp(predicate, V, V) with arith.cmpf's predicates (oeq une oge ogt ole
//   olt uno) giving a condition, signbit(V) (the sign bit of the value's
//   bits, set for -0 and negative NaNs) giving a condition, select(cond, V,
//   V), both/either(cond, cond).
//
// The definitions follow XLA's elemental IR emitter and C99's Annex G
// special values (which numpy's complex functions implement); where one of
// them is not defined by XLA (no complex form there) the C99 one is used.
// Each comment gives the formula and why it holds at the edges.
#pragma once

#include <limits>
#include <vector>

namespace jft::codegen::ttir::cmath {

template <class V>
struct Cx {
  V re, im;
};

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class A, class V>
V zero(A& a, const V& like) {
  return a.constant(like, 0.0);
}

template <class A, class V>
V isZero(A& a, const V& x) {
  return a.cmp("oeq", x, zero(a, x));
}

// |m| with the sign of s, the sign read from s's bits (so -0 counts as
// negative): one select on integer compares, no library call, the same on
// every backend. (jnp.sqrt of complex values never reaches this: JAX sends it
// expanded into real ops; see docs/ops.md.)
template <class A, class V>
V copysign(A& a, const V& m, const V& s) {
  const V mag = a.abs(m);
  return a.select(a.signbit(s), a.neg(mag), mag);
}

// (a + bi)(c + di) = (ac - bd) + (ad + bc)i.
template <class A, class V>
Cx<V> multiply(A& a, const Cx<V>& x, const Cx<V>& y) {
  return {a.sub(a.mul(x.re, y.re), a.mul(x.im, y.im)),
          a.add(a.mul(x.re, y.im), a.mul(x.im, y.re))};
}

// Smith's algorithm: divide by the larger of |c|, |d| first so that neither
// c^2 nor d^2 is formed (no overflow or underflow).
template <class A, class V>
Cx<V> divide(A& a, const Cx<V>& x, const Cx<V>& y) {
  const V &p = x.re, &q = x.im, &c = y.re, &d = y.im;
  const V c_wins = a.cmp("oge", a.abs(c), a.abs(d));
  // |c| >= |d|: r = d / c, den = c + d r, re = (p + q r) / den, im = (q - p r) / den.
  const V r1 = a.div(d, c);
  const V den1 = a.add(c, a.mul(d, r1));
  // Otherwise: r = c / d, den = c r + d, re = (p r + q) / den, im = (q r - p) / den.
  const V r2 = a.div(c, d);
  const V den2 = a.add(a.mul(c, r2), d);
  return {a.select(c_wins, a.div(a.add(p, a.mul(q, r1)), den1),
                   a.div(a.add(a.mul(p, r2), q), den2)),
          a.select(c_wins, a.div(a.sub(q, a.mul(p, r1)), den1),
                   a.div(a.sub(a.mul(q, r2), p), den2))};
}

// hypot(x, y) with C99's rule made explicit: +inf when either part is
// infinite, even when the other is NaN (|inf + NaN i| = inf, and so
// log(inf + NaN i) = inf + NaN i). The formulas must not lean on the
// library for this: on the H200, log(inf + NaN i) came out with a NaN real
// part, and the device library's hypot is the one step that can give it.
template <class A, class V>
V hypot(A& a, const V& x, const V& y) {
  const V inf = a.constant(x, kInf);
  const V infinite = a.either(a.cmp("oeq", a.abs(x), inf), a.cmp("oeq", a.abs(y), inf));
  return a.select(infinite, inf, a.call("hypot", {x, y}));
}

// |z| by hypot: no overflow of re^2 + im^2.
template <class A, class V>
V absolute(A& a, const Cx<V>& z) {
  return hypot(a, z.re, z.im);
}

// e^x (cos y + i sin y); a zero imaginary part stays exactly (exp(inf + 0i)
// is inf + 0i, not inf * 0 = NaN).
template <class A, class V>
Cx<V> exp(A& a, const Cx<V>& z) {
  const V e = a.call("exp", {z.re});
  return {a.mul(e, a.call("cos", {z.im})),
          a.select(isZero(a, z.im), z.im, a.mul(e, a.call("sin", {z.im})))};
}

// log|z|: log(hypot(x, y)), except where |z| is near 1 and that would be
// log(1 +- ulp) with everything below the ulp lost: there
// log1p((p - 1)(p + 1) + q^2) / 2 with p = max(|x|, |y|), q = min (p - 1 is
// exact for p in [1/2, 2]; log(1 + 1e-8i) keeps its real part 5e-17).
template <class A, class V>
V logAbs(A& a, const Cx<V>& z) {
  const V ax = a.abs(z.re), ay = a.abs(z.im);
  const V x_wins = a.cmp("oge", ax, ay);
  const V p = a.select(x_wins, ax, ay), q = a.select(x_wins, ay, ax);
  const V one = a.constant(p, 1.0);
  const V near_one =
      a.both(a.cmp("oge", p, a.constant(p, 0.5)), a.cmp("ole", p, a.constant(p, 2.0)));
  const V m = a.add(a.mul(a.sub(p, one), a.add(p, one)), a.mul(q, q));
  return a.select(near_one, a.mul(a.call("log1p", {m}), a.constant(p, 0.5)),
                  a.call("log", {absolute(a, z)}));
}

// log|z| + i atan2(y, x).
template <class A, class V>
Cx<V> log(A& a, const Cx<V>& z) {
  return {logAbs(a, z), a.call("atan2", {z.im, z.re})};
}

// The principal root from t = sqrt((|x| + |z|) / 2), which has no
// cancellation: x >= 0 gives (t, y / 2t), x < 0 gives (|y| / 2t, copysign(t,
// y)), so the sign of a zero imaginary part picks the side of the branch cut
// (sqrt(-1 - 0i) = -i). Near the top of the range |x| + |z| overflows: there
// t is 2 sqrt((|x/4| + |z/4|) / 2). z = +-0 + yi with y = +-0 gives (+0, y);
// an infinite y gives (+inf, y) whatever x is (C99); x = -inf gives
// (0, +-inf) and x = +inf gives (inf, +-0) from the formula itself.
template <class A, class V>
Cx<V> sqrt(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V half = a.constant(x, 0.5), quarter = a.constant(x, 0.25);
  auto root = [&](const V& u, const V& v) {
    return a.sqrt(a.mul(a.add(hypot(a, u, v), a.abs(u)), half));
  };
  const V big = a.constant(x, a.wide(x) ? 0x1p1020 : 0x1p124);
  const V large = a.either(a.cmp("oge", a.abs(x), big), a.cmp("oge", a.abs(y), big));
  const V scaled = a.mul(root(a.mul(x, quarter), a.mul(y, quarter)), a.constant(x, 2.0));
  const V t = a.select(large, scaled, root(x, y));
  const V two_t = a.add(t, t);
  const V nonneg = a.cmp("oge", x, zero(a, x));
  const V is_zero = isZero(a, t);
  const V inf = a.constant(x, kInf);
  const V y_inf = a.cmp("oeq", a.abs(y), inf);
  V re = a.select(nonneg, t, a.div(a.abs(y), two_t));
  V im = a.select(nonneg, a.div(y, two_t), copysign(a, t, y));
  re = a.select(y_inf, inf, a.select(is_zero, zero(a, x), re));
  im = a.select(y_inf, y, a.select(is_zero, y, im));
  return {re, im};
}

// 1 / sqrt(z) = conj(s) / |s|^2 with s = sqrt(z), divided by |s| twice so
// that nothing overflows. z = 0 gives inf + NaN i (1 / 0 as numpy divides);
// |s| = inf gives zeros with the signs of conj(s) (XLA).
template <class A, class V>
Cx<V> rsqrt(A& a, const Cx<V>& z) {
  const Cx<V> s = sqrt(a, z);
  const V r = absolute(a, s);
  const V inf = a.constant(r, kInf);
  const V re = a.div(a.div(s.re, r), r);
  const V im = a.neg(a.div(a.div(s.im, r), r));
  const V r_zero = isZero(a, r), r_inf = a.cmp("oeq", r, inf);
  const V z0 = zero(a, r);
  return {a.select(r_zero, inf, a.select(r_inf, copysign(a, z0, s.re), re)),
          a.select(r_zero, a.constant(r, kNaN),
                   a.select(r_inf, a.neg(copysign(a, z0, s.im)), im))};
}

// z^w for z = a + bi, w = c + di (XLA's definition, with |z| by hypot):
// r = |z|, theta = atan2(b, a), z^w = r^c e^(-d theta) (cos q + i sin q),
// q = c theta + d log r. For d = 0 the d log r term is left out, so that a
// zero base with a real exponent gives r^c (0^-1 = inf + NaN i as in numpy)
// rather than 0 * -inf = NaN; 0^c for real c >= 0 is 1 when c = 0, else 0.
template <class A, class V>
Cx<V> power(A& a, const Cx<V>& z, const Cx<V>& w) {
  const V r = absolute(a, z);
  const V theta = a.call("atan2", {z.im, z.re});
  const V coeff =
      a.mul(a.call("pow", {r, w.re}), a.call("exp", {a.mul(a.neg(w.im), theta)}));
  const V d_zero = isZero(a, w.im);
  const V c_theta = a.mul(w.re, theta);
  const V q = a.select(d_zero, c_theta, a.add(c_theta, a.mul(w.im, logAbs(a, z))));
  const V z0 = zero(a, r), one = a.constant(r, 1.0);
  const V zero_base = a.both(a.both(isZero(a, r), d_zero), a.cmp("oge", w.re, z0));
  const V zero_result = a.select(isZero(a, w.re), one, z0);
  return {a.select(zero_base, zero_result, a.mul(coeff, a.call("cos", {q}))),
          a.select(zero_base, z0, a.mul(coeff, a.call("sin", {q})))};
}

// The principal cube root: z^(1/3) (XLA: power with c = 1/3, d = 0).
template <class A, class V>
Cx<V> cbrt(A& a, const Cx<V>& z) {
  return power(a, z, Cx<V>{a.constant(z.re, 1.0 / 3.0), zero(a, z.re)});
}

// sign(z) = z / |z|, 0 for z = 0 (XLA; NaN in, NaN out).
template <class A, class V>
Cx<V> sign(A& a, const Cx<V>& z) {
  const V r = absolute(a, z);
  const V r_zero = isZero(a, r);
  const V z0 = zero(a, r);
  return {a.select(r_zero, z0, a.div(z.re, r)), a.select(r_zero, z0, a.div(z.im, r))};
}

// sin(x + yi) = sin x cosh y + i cos x sinh y. sinh/cosh from the library
// are accurate for small y (no exp(y) - exp(-y) cancellation). x = 0 keeps
// the real part x (not 0 * inf = NaN for an infinite y); y = 0 keeps the
// imaginary part y (not NaN * 0 for an infinite x).
template <class A, class V>
Cx<V> sin(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V re = a.mul(a.call("sin", {x}), a.call("cosh", {y}));
  const V im = a.mul(a.call("cos", {x}), a.call("sinh", {y}));
  return {a.select(isZero(a, x), x, re), a.select(isZero(a, y), y, im)};
}

// cos(x + yi) = cos x cosh y - i sin x sinh y; when x or y is 0 the
// imaginary part is a zero of sign -sign(x) sign(y) (no 0 * inf = NaN).
template <class A, class V>
Cx<V> cos(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V re = a.mul(a.call("cos", {x}), a.call("cosh", {y}));
  const V im = a.neg(a.mul(a.call("sin", {x}), a.call("sinh", {y})));
  const V one = a.constant(x, 1.0);
  const V signed_zero = a.neg(a.mul(copysign(a, zero(a, x), x), copysign(a, one, y)));
  return {re, a.select(a.either(isZero(a, x), isZero(a, y)), signed_zero, im)};
}

// tanh(x + yi) by Kahan's formula (no cancellation near the poles): with
// t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2), d = 1 + b s^2,
// tanh z = (b r s / d) + (t / d) i. For |x| past the point where tanh x
// rounds to +-1 (22 for f64, 11 for f32) it is copysign(1, x) +
// 4 sin y cos y e^(-2|x|) i, which neither overflows nor divides inf by inf;
// when that exponential underflows to 0 the imaginary part is a zero
// (tanh(inf + yi) = 1 + 0i for every y). x = 0 gives x + i tan y exactly
// (0 + NaN i for an infinite y), y = 0 gives tanh x + yi (NaN + 0i for a
// NaN x), as C99 defines them.
template <class A, class V>
Cx<V> tanh(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V one = a.constant(x, 1.0);
  const V t = a.call("tan", {y});
  const V b = a.add(one, a.mul(t, t));
  const V s = a.call("sinh", {x});
  const V s2 = a.mul(s, s);
  const V r = a.sqrt(a.add(one, s2));
  const V d = a.add(one, a.mul(b, s2));
  const V near_re = a.div(a.mul(a.mul(b, r), s), d);
  const V near_im = a.div(t, d);
  const V e = a.call("exp", {a.mul(a.abs(x), a.constant(x, -2.0))});
  const V sc = a.mul(a.call("sin", {y}), a.call("cos", {y}));
  // A finite x with an infinite or NaN y: NaN + NaN i (C99), also out here.
  const V undefined = a.both(a.cmp("uno", sc, sc), a.cmp("une", e, zero(a, e)));
  const V far_re = a.select(undefined, a.constant(x, kNaN), copysign(a, one, x));
  const V far_im = a.select(isZero(a, e), copysign(a, zero(a, x), sc),
                            a.mul(a.mul(sc, a.constant(x, 4.0)), e));
  const V far = a.cmp("ogt", a.abs(x), a.constant(x, a.wide(x) ? 22.0 : 11.0));
  const V re = a.select(far, far_re, a.select(isZero(a, x), x, near_re));
  const V im = a.select(far, far_im, near_im);
  return {re, a.select(isZero(a, y), y, im)};
}

// tan z = -i tanh(iz): with tanh(-y + xi) = u + vi, tan z = v - ui.
template <class A, class V>
Cx<V> tan(A& a, const Cx<V>& z) {
  const Cx<V> w = tanh(a, Cx<V>{a.neg(z.im), z.re});
  return {w.im, a.neg(w.re)};
}

// e^z - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y: cos y - 1 as
// -2 sin^2(y/2) and e^x - 1 as expm1(x) keep small |z| accurate (XLA's and
// numpy's definition; expm1(inf + 0i) is inf + NaN i there too).
template <class A, class V>
Cx<V> expm1(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V h = a.call("sin", {a.mul(y, a.constant(y, 0.5))});
  const V re = a.sub(a.mul(a.call("expm1", {x}), a.call("cos", {y})),
                     a.mul(a.constant(x, 2.0), a.mul(h, h)));
  return {re, a.mul(a.call("exp", {x}), a.call("sin", {y}))};
}

// log(1 + z) = log|1 + z| + i atan2(y, 1 + x). For |x|, |y| < 1/2,
// log|1 + z| = log1p(2x + x^2 + y^2) / 2 (accurate for small z, where
// log(hypot(1 + x, y)) loses everything to the rounding of 1 + x); beyond,
// log(hypot(1 + x, y)), which cannot overflow. NaN parts take the second
// form (ordered compares).
template <class A, class V>
Cx<V> log1p(A& a, const Cx<V>& z) {
  const V &x = z.re, &y = z.im;
  const V one = a.constant(x, 1.0), half = a.constant(x, 0.5);
  const V xp1 = a.add(x, one);
  const V m = a.add(a.mul(x, a.add(x, a.constant(x, 2.0))), a.mul(y, y));
  const V small = a.both(a.cmp("olt", a.abs(x), half), a.cmp("olt", a.abs(y), half));
  const V re = a.select(small, a.mul(a.call("log1p", {m}), half),
                        a.call("log", {hypot(a, xp1, y)}));
  return {re, a.call("atan2", {y, xp1})};
}

// 1 / (1 + e^-z) (XLA's logistic of a complex value).
template <class A, class V>
Cx<V> logistic(A& a, const Cx<V>& z) {
  const V one = a.constant(z.re, 1.0);
  const Cx<V> e = exp(a, Cx<V>{a.neg(z.re), a.neg(z.im)});
  return divide(a, Cx<V>{one, zero(a, one)}, Cx<V>{a.add(one, e.re), e.im});
}

}  // namespace jft::codegen::ttir::cmath
