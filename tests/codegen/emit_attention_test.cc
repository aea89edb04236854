// The attention family's kernel (attention_emitter.h): the TTIR's shape (two
// tt.dot in one key loop, the output the only store), and its numerics run by
// the host TTIR interpreter against a reference computing the program's
// StableHLO ops one after another in the program's own types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <random>

#include "attention_modules.h"
#include "codegen/ttir/attention_emitter.h"
#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "emit_test_util.h"
#include "fusion/attention_form.h"
#include "fusion/use_graph.h"
#include "ir/float_text.h"
#include "ir/verifier.h"
#include "ttir_interp.h"

namespace jft::codegen::ttir::testing {
namespace {

ElementType elementOf(const std::string& type) {
  if (type == "bf16") return ElementType::BF16;
  if (type == "f16") return ElementType::F16;
  return ElementType::F32;
}

double roundTo(double x, ElementType type) {
  return ir::decodeFloat(type, *ir::encodeFloat(type, x));
}

struct Planned {
  ir::Module module;
  fusion::Plan plan;
};

// The program planned as the compiler would (the library route available).
Planned plan(const AttentionProgram& p) {
  StatusOr<ir::Module> m = attentionModule(p);
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  Planned out{m.isOk() ? std::move(m).value() : ir::Module{}, {}};
  const Status verified = ir::verifyModule(out.module);
  EXPECT_TRUE(verified.isOk()) << verified.toString();
  fusion::PlanOptions options;
  options.library_route = true;
  if (out.module.entry() != nullptr)
    out.plan = fusion::planFusions(out.module, *out.module.entry(), withTtir(options));
  return out;
}

// The one attention kernel of `p`'s plan.
TtirKernel attentionKernel(const Planned& planned) {
  EXPECT_EQ(planned.plan.fusions.size(), 1u);
  if (planned.plan.fusions.size() != 1) return {};
  const fusion::Fusion& f = planned.plan.fusions[0];
  EXPECT_EQ(f.family, fusion::Family::kAttention);
  return emitChecked(planned.module, f);
}

// The program's ops in its types: dot (exact sum, rounded to the dot's
// type), convert, scale, mask, max, exp, sum, divide in f32, convert, dot.
std::vector<double> reference(const AttentionProgram& p, const std::vector<double>& q,
                              const std::vector<double>& k,
                              const std::vector<double>& v) {
  const ElementType e = elementOf(p.type);
  const ElementType f32 = ElementType::F32;
  const int64_t items = p.batch * p.heads;
  const double scale = roundTo(p.divide ? 1 / p.scale() : p.scale(), f32);
  const double fill = roundTo(std::strtod(p.fill.c_str(), nullptr), f32);
  std::vector<double> out(static_cast<size_t>(items * p.tq * p.dv));
  std::vector<double> x(static_cast<size_t>(p.tk));
  for (int64_t b = 0; b < items; ++b)
    for (int64_t i = 0; i < p.tq; ++i) {
      const double* qi = &q[static_cast<size_t>((b * p.tq + i) * p.d)];
      double mx = -INFINITY;
      for (int64_t j = 0; j < p.tk; ++j) {
        const double* kj = &k[static_cast<size_t>((b * p.tk + j) * p.d)];
        double s = 0;
        for (int64_t d = 0; d < p.d; ++d) s += qi[d] * kj[d];
        s = roundTo(s, e);
        s = roundTo(p.divide ? s / scale : s * scale, f32);
        if (p.causal && !(i + p.mask_offset >= j)) s = fill;
        x[static_cast<size_t>(j)] = s;
        mx = std::max(mx, s);
      }
      double l = 0;
      for (int64_t j = 0; j < p.tk; ++j) {
        double& xj = x[static_cast<size_t>(j)];
        xj = roundTo(std::exp(roundTo(xj - mx, f32)), f32);
        l = roundTo(l + xj, f32);
      }
      for (int64_t j = 0; j < p.tk; ++j)
        x[static_cast<size_t>(j)] =
            roundTo(roundTo(x[static_cast<size_t>(j)] / l, f32), e);
      for (int64_t c = 0; c < p.dv; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < p.tk; ++j)
          acc += x[static_cast<size_t>(j)] *
                 v[static_cast<size_t>((b * p.tk + j) * p.dv + c)];
        out[static_cast<size_t>((b * p.tq + i) * p.dv + c)] = roundTo(acc, e);
      }
    }
  return out;
}

// `n` values in [-2, 2) rounded to `type`.
std::vector<double> randomValues(size_t n, ElementType type, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<double> out(n);
  for (double& x : out) x = roundTo(dist(rng), type);
  return out;
}

// Values of `type` as the kernel's buffers hold them (row-major, dense).
std::vector<uint8_t> encode(const std::vector<double>& values, ElementType type) {
  const size_t bytes = static_cast<size_t>(ir::storageBytes(type));
  std::vector<uint8_t> out(values.size() * bytes);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = *ir::encodeFloat(type, values[i]);
    std::memcpy(&out[i * bytes], &bits, bytes);  // little-endian host
  }
  return out;
}

std::vector<double> decode(const std::vector<uint8_t>& bytes, ElementType type) {
  const size_t size = static_cast<size_t>(ir::storageBytes(type));
  std::vector<double> out(bytes.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &bytes[i * size], size);
    out[i] = ir::decodeFloat(type, bits);
  }
  return out;
}

// ||kernel - reference|| / ||reference|| for `p`'s program on random inputs.
double relativeError(const AttentionProgram& p) {
  const Planned planned = plan(p);
  const TtirKernel kernel = attentionKernel(planned);
  if (kernel.ttir.empty()) return INFINITY;
  const ElementType e = elementOf(p.type);
  const size_t items = static_cast<size_t>(p.batch * p.heads);
  const auto q = randomValues(items * static_cast<size_t>(p.tq * p.d), e, 1);
  const auto k = randomValues(items * static_cast<size_t>(p.tk * p.d), e, 2);
  const auto v = randomValues(items * static_cast<size_t>(p.tk * p.dv), e, 3);
  std::vector<uint8_t> qb = encode(q, e), kb = encode(k, e), vb = encode(v, e);
  std::vector<uint8_t> ob(items * static_cast<size_t>(p.tq * p.dv) *
                          static_cast<size_t>(ir::storageBytes(e)));
  const Status run = runTtir(kernel.ttir, kernel.grid,
                             {{qb.data(), qb.size()},
                              {kb.data(), kb.size()},
                              {vb.data(), vb.size()},
                              {ob.data(), ob.size()}});
  EXPECT_TRUE(run.isOk()) << run.toString();
  const std::vector<double> got = decode(ob, e), want = reference(p, q, k, v);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

TEST(EmitAttention, OneKeyLoopTwoDotsAndOnlyTheOutputStored) {
  AttentionProgram p;
  p.tq = p.tk = 256;
  p.d = p.dv = 64;
  const TtirKernel k = attentionKernel(plan(p));
  EXPECT_EQ(count(k.ttir, "tt.dot "), 2) << k.ttir;
  EXPECT_EQ(count(k.ttir, "scf.for "), 1) << k.ttir;
  // The output tile [BLOCK_M, Dv] is the only store: no [Tq, Tk] scores.
  ASSERT_EQ(count(k.ttir, "tt.store "), 1) << k.ttir;
  const size_t store = k.ttir.find("tt.store ");
  const std::string line = k.ttir.substr(store, k.ttir.find('\n', store) - store);
  EXPECT_NE(line.find("tensor<128x64x!tt.ptr<bf16>>"), std::string::npos) << line;
  EXPECT_EQ(k.outputs.size(), 1u);
  EXPECT_EQ((std::array<uint32_t, 3>{2, 4, 1}), k.grid);  // Tq / 128, batch x heads
  EXPECT_EQ(k.num_warps, 8);
  EXPECT_EQ(k.tile, "128x64x64");
  // Causal: the loop ends at the block's last kept key.
  EXPECT_NE(k.ttir.find("arith.minsi"), std::string::npos) << k.ttir;
}

TEST(EmitAttention, TilesFollowTheShape) {
  const AttentionTile bench = chooseAttentionTile(2048, 2048, 128, 128, 16);
  EXPECT_EQ(bench.m, 128);
  EXPECT_EQ(bench.n, 64);
  EXPECT_EQ(bench.num_warps, 8);
  const AttentionTile wide = chooseAttentionTile(2048, 2048, 256, 256, 16);
  EXPECT_EQ(wide.m, 64);
  EXPECT_EQ(wide.n, 32);
  const AttentionTile small = chooseAttentionTile(20, 40, 24, 24, 32);
  EXPECT_EQ(small.m, 32);
  EXPECT_EQ(small.n, 64);
  EXPECT_EQ(small.d, 32);
}

TEST(EmitAttention, InterpretedBf16EqualsTheOpByOpReference) {
  for (int64_t t : {64, 100, 200})
    for (bool causal : {true, false}) {
      AttentionProgram p;
      p.tq = p.tk = t;
      p.causal = causal;
      p.batch = 1;
      p.d = p.dv = t == 100 ? 64 : 32;
      EXPECT_LT(relativeError(p), 1e-2) << "T=" << t << " causal=" << causal;
    }
}

TEST(EmitAttention, InterpretedF32EqualsTheOpByOpReference) {
  for (int64_t t : {64, 130})
    for (bool causal : {true, false}) {
      AttentionProgram p;
      p.type = "f32";
      p.highest = true;  // exact products: no TF32 rounding to tell apart
      p.tq = p.tk = t;
      p.causal = causal;
      p.batch = 1;
      p.divide = true;
      EXPECT_LT(relativeError(p), 1e-5) << "T=" << t << " causal=" << causal;
    }
}

TEST(EmitAttention, InterpretedRaggedCrossAttention) {
  AttentionProgram p;
  p.batch = 1;
  p.tq = 72;
  p.tk = 150;
  p.d = 64;
  p.dv = 32;
  p.causal = false;
  EXPECT_LT(relativeError(p), 1e-2);
  p.type = "f16";
  EXPECT_LT(relativeError(p), 1e-2);
}

// A mask whose first rows keep no key: the finite fill gives them uniform
// weights, as the program does (no key block is skipped then); a positive
// offset keeps more keys past the diagonal, and blocks past them are
// skipped.
TEST(EmitAttention, InterpretedShiftedCausalMasks) {
  for (int64_t offset : {-5, -70, 3, 40}) {
    AttentionProgram p;
    p.batch = 1;
    p.tq = p.tk = 300;  // two row blocks: the first skips keys past 192
    p.mask_offset = offset;
    StatusOr<ir::Module> m = attentionModule(p);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    const fusion::UseGraph uses(m->entry()->body);
    std::optional<fusion::AttentionForm> form = fusion::attentionFormOf(
        *m, m->entry()->body, uses, m->entry()->body.ops.size() - 2);
    ASSERT_TRUE(form.has_value());
    EXPECT_EQ(form->causal_offset,
              offset < 0 ? std::nullopt : std::optional<int64_t>(offset));
    EXPECT_LT(relativeError(p), 1e-2) << "offset " << offset;
  }
}

// The benchmark's shape (B=8, H=16, T=2048, D=128, bf16, causal) and a few
// others: the launch the kernel asks for. Under JFT_TTIR_DUMP_DIR each is
// written as attention_<case>.ttir with its launch and program in the .json
// beside it, for tests/codegen/run_attention_check.py on a GPU.
TEST(EmitAttention, BenchmarkShapeLaunch) {
  struct Case {
    std::string name;
    AttentionProgram program;
  };
  const AttentionProgram bench{
      .batch = 8, .heads = 16, .tq = 2048, .tk = 2048, .d = 128, .dv = 128};
  AttentionProgram full = bench;
  full.causal = false;
  AttentionProgram ragged{
      .batch = 2, .heads = 3, .tq = 1000, .tk = 1000, .d = 64, .dv = 64, .type = "f16"};
  AttentionProgram wide{
      .batch = 2, .heads = 4, .tq = 512, .tk = 700, .d = 256, .dv = 256, .causal = false};
  AttentionProgram f32{
      .batch = 2, .heads = 2, .tq = 300, .tk = 300, .d = 64, .dv = 64, .type = "f32"};
  for (const Case& c :
       {Case{"bench", bench}, Case{"bench_full", full}, Case{"ragged_f16", ragged},
        Case{"wide_d256", wide}, Case{"f32_tf32", f32}}) {
    const TtirKernel k = attentionKernel(plan(c.program));
    ASSERT_FALSE(k.ttir.empty()) << c.name;
    if (c.name == "bench") {
      EXPECT_EQ((std::array<uint32_t, 3>{16, 128, 1}), k.grid);
      EXPECT_EQ(k.tile, "128x64x128");
      EXPECT_EQ(k.num_warps, 8);
      EXPECT_EQ(k.num_stages, 3);
    }
    const char* dump = std::getenv("JFT_TTIR_DUMP_DIR");
    if (dump == nullptr || *dump == 0) continue;
    const AttentionProgram& p = c.program;
    const std::string base = std::string(dump) + "/attention_" + c.name;
    std::ofstream(base + ".ttir") << k.ttir;
    std::ofstream(base + ".json")
        << "{\"grid\": [" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2]
        << "], \"num_warps\": " << k.num_warps << ", \"num_stages\": " << k.num_stages
        << ", \"batch\": " << p.batch << ", \"heads\": " << p.heads
        << ", \"tq\": " << p.tq << ", \"tk\": " << p.tk << ", \"d\": " << p.d
        << ", \"dv\": " << p.dv << ", \"type\": \"" << p.type
        << "\", \"causal\": " << (p.causal ? "true" : "false") << ", \"fill\": " << p.fill
        << ", \"scale\": " << std::setprecision(9) << p.scale() << "}\n";
  }
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
