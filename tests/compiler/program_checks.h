// Checks any assembled Program must pass, computed from the Program alone:
// slot references in range, launch buffers matching each kernel's buffer
// parameters (when binaries exist), temps inside the arena, and no two temps
// live at the same thunk sharing bytes (liveness recomputed here from the
// thunk order, independently of the compiler's packing).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <variant>

#include "runtime/program.h"

namespace jft::compiler::testing {

inline void expectConsistentProgram(const runtime::Program& p, bool with_kernels) {
  using Kind = runtime::BufferSlot::Kind;
  const int slots = static_cast<int>(p.slots.size());
  std::map<int, std::pair<int, int>> live;  // temp slot -> first, last thunk
  for (size_t t = 0; t < p.thunks.size(); ++t) {
    std::vector<int> used;
    if (const auto* launch = std::get_if<runtime::LaunchThunk>(&p.thunks[t])) {
      if (with_kernels) {
        ASSERT_GE(launch->kernel, 0);
        ASSERT_LT(launch->kernel, static_cast<int>(p.kernels.size()));
        size_t buffers = 0;
        for (auto param : p.kernels[static_cast<size_t>(launch->kernel)].params)
          buffers += param == runtime::KernelImage::Param::kBuffer;
        EXPECT_EQ(launch->buffers.size(), buffers) << "thunk " << t;
      }
      used = launch->buffers;
    } else if (const auto* copy = std::get_if<runtime::CopyThunk>(&p.thunks[t])) {
      used = {copy->source, copy->destination};
      ASSERT_GE(copy->source, 0);
      ASSERT_LT(copy->source, slots);
      ASSERT_GE(copy->destination, 0);
      ASSERT_LT(copy->destination, slots);
      EXPECT_EQ(copy->bytes, p.slots[static_cast<size_t>(copy->destination)].bytes);
      EXPECT_LE(copy->bytes, p.slots[static_cast<size_t>(copy->source)].bytes);
    } else if (const auto* gemm = std::get_if<runtime::GemmThunk>(&p.thunks[t])) {
      used = {gemm->a, gemm->b, gemm->d};
      if (gemm->bias >= 0) used.push_back(gemm->bias);
    } else if (const auto* library = std::get_if<runtime::LibraryThunk>(&p.thunks[t])) {
      used = library->buffers;
    } else if (const auto* c = std::get_if<runtime::CollectiveThunk>(&p.thunks[t])) {
      // Read and written at once: never the same slot, and as temps live
      // together (checked below).
      EXPECT_NE(c->input, c->output) << "thunk " << t;
      used = {c->input, c->output};
    } else if (const auto* id = std::get_if<runtime::ParticipantIdThunk>(&p.thunks[t])) {
      used = {id->destination};
    }
    for (int s : used) {
      ASSERT_GE(s, 0) << "thunk " << t;
      ASSERT_LT(s, slots) << "thunk " << t;
      const runtime::BufferSlot& slot = p.slots[static_cast<size_t>(s)];
      if (slot.kind != Kind::kTemp || slot.bytes == 0) continue;
      auto [it, fresh] = live.try_emplace(s, static_cast<int>(t), static_cast<int>(t));
      if (!fresh) it->second.second = static_cast<int>(t);
    }
  }
  for (const auto& [s, life] : live) {
    const runtime::BufferSlot& a = p.slots[static_cast<size_t>(s)];
    EXPECT_EQ(a.offset % 256, 0u);
    EXPECT_LE(a.offset + a.bytes, p.temp_bytes) << "slot " << s;
    for (const auto& [s2, life2] : live) {
      if (s2 <= s) continue;
      const runtime::BufferSlot& b = p.slots[static_cast<size_t>(s2)];
      bool together = life.first <= life2.second && life2.first <= life.second;
      bool overlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      EXPECT_FALSE(together && overlap) << "temp slots " << s << " and " << s2;
    }
  }
  for (size_t i = 0; i < p.output_slots.size(); ++i) {
    const runtime::BufferSlot& out = p.slots.at(static_cast<size_t>(p.output_slots[i]));
    EXPECT_EQ(out.kind, Kind::kOutput);
    EXPECT_EQ(out.index, static_cast<int>(i));
  }
  EXPECT_EQ(p.output_aliases.size(), p.output_slots.size());
}

}  // namespace jft::compiler::testing
