// Every zoo fixture's program.mlirbc decodes, and its tree has the shape of
// the same module's generic text (artifact.generic.mlir): the same ops in
// the same order with the same result/operand counts and locations, the
// same block arguments. The text names ops by their StableHLO names where
// the bytes hold VHLO names, so names are compared after that mapping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "frontend/bytecode/reader.h"
#include "generic_text_outline.h"
#include "test_support.h"

namespace jft::frontend {
namespace {

using bytecode_test::fixtureDir;
using bytecode_test::fixtureNames;
using bytecode_test::Outline;
using bytecode_test::OutlineItem;

std::string canonicalTreeLoc(const MAttr* loc) {
  if (!loc || loc->kind != MAttr::Kind::Location) return "<not a location>";
  auto child = [&](size_t i) {
    return i < loc->elements.size() ? canonicalTreeLoc(loc->elements[i].get())
                                    : std::string("unknown");
  };
  switch (loc->loc_kind) {
    case MAttr::LocKind::Unknown:
      return "unknown";
    case MAttr::LocKind::Name:
      return "name(\"" + loc->str + "\"," + child(0) + ")";
    case MAttr::LocKind::CallSite:
      return "callsite(" + child(0) + "," + child(1) + ")";
    case MAttr::LocKind::FileLineCol: {
      std::string out = "file(\"" + loc->str + "\"";
      for (int64_t v : loc->ints) out += "," + std::to_string(v);
      return out + ")";
    }
    case MAttr::LocKind::Fused: {
      std::string out = "fused(";
      for (size_t i = 0; i < loc->elements.size(); ++i) out += (i ? "," : "") + child(i);
      return out + ")";
    }
  }
  return "?";
}

// "vhlo.add_v1" -> "stablehlo.add"; func ops go back to the func dialect.
std::string stablehloName(const std::string& name, const std::string& parent) {
  static const std::regex versioned(R"re(^vhlo\.(.*)_v\d+$)re");
  std::smatch m;
  if (!std::regex_match(name, m, versioned)) return name;
  std::string base = m[1];
  if (base == "func") return "func.func";
  if (base == "call") return "func.call";
  if (base == "return")
    return parent == "vhlo.func_v1" ? "func.return" : "stablehlo.return";
  return "stablehlo." + base;
}

std::vector<OutlineItem> treeOutline(const MTree& tree,
                                     std::vector<const MOp*>* ops_out = nullptr) {
  std::vector<OutlineItem> items;
  std::function<void(const MOp&, const std::string&)> walk =
      [&](const MOp& op, const std::string& parent) {
        OutlineItem item;
        item.name = stablehloName(op.name, parent);
        item.num_results = int(op.results.size());
        item.num_operands = int(op.operands.size());
        if (op.regions.empty()) item.loc = canonicalTreeLoc(op.loc.get());
        items.push_back(item);
        if (ops_out) ops_out->push_back(&op);
        for (const MRegion& region : op.regions) {
          for (size_t b = 0; b < region.blocks.size(); ++b) {
            const MBlock& block = region.blocks[b];
            if (b > 0 || !block.args.empty()) {
              OutlineItem header;
              header.is_block = true;
              header.num_operands = int(block.args.size());
              items.push_back(header);
              if (ops_out) ops_out->push_back(nullptr);
            }
            for (const MOp& child : block.ops) walk(child, op.name);
          }
        }
      };
  for (const MOp& op : tree.top) walk(op, "");
  return items;
}

std::string describe(const OutlineItem& item) {
  if (item.is_block) return "^bb with " + std::to_string(item.num_operands) + " args";
  return item.name + " results=" + std::to_string(item.num_results) +
         " operands=" + std::to_string(item.num_operands) + " loc=" + item.loc;
}

class Fixture : public testing::TestWithParam<std::string> {
 protected:
  std::string path(const std::string& file) const {
    return fixtureDir() + "/" + GetParam() + "/" + file;
  }
};

TEST_P(Fixture, DecodesLikeItsGenericText) {
  std::vector<uint8_t> bytes = bytecode_test::readFileBytes(path("program.mlirbc"));
  ASSERT_FALSE(bytes.empty());
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();

  std::string manifest = bytecode_test::readFileText(fixtureDir() + "/MANIFEST.json");
  std::smatch target;
  ASSERT_TRUE(
      std::regex_search(manifest, target, std::regex(R"re("target": "([0-9.]+)")re")));
  EXPECT_EQ(tree->producer, "StableHLO_v" + target[1].str());
  EXPECT_EQ(tree->version, 6u);
  EXPECT_EQ(std::count(tree->dialects.begin(), tree->dialects.end(), "vhlo"), 1);

  Outline expected = bytecode_test::readOutline(
      bytecode_test::readFileText(path("artifact.generic.mlir")));
  std::vector<OutlineItem> actual = treeOutline(*tree);
  size_t num_ops = 0, num_locs = 0;
  for (const auto& item : expected.items) {
    num_ops += !item.is_block;
    num_locs += !item.loc.empty();
    EXPECT_EQ(item.loc.find("<unparsed"), std::string::npos) << item.loc;
    EXPECT_EQ(item.loc.find("<bad alias"), std::string::npos) << item.loc;
  }
  ASSERT_GT(num_ops, 2u);
  EXPECT_GE(num_locs * 2, num_ops);  // most ops have their location on their line
  ASSERT_EQ(actual.size(), expected.items.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const OutlineItem& want = expected.items[i];
    const OutlineItem& got = actual[i];
    ASSERT_EQ(describe(got), want.loc.empty() && !got.is_block
                                 ? describe({got.is_block, want.name, want.num_results,
                                             want.num_operands, got.loc})
                                 : describe(want))
        << "item " << i;
  }

  ASSERT_EQ(tree->top.size(), 1u);
  const MAttr* sym_name = tree->top[0].attr("sym_name");
  ASSERT_NE(sym_name, nullptr);
  EXPECT_EQ(sym_name->str, expected.module_sym_name);
}

TEST_P(Fixture, ValueIdsAreUniqueAndEveryOperandIsDefined) {
  std::vector<uint8_t> bytes = bytecode_test::readFileBytes(path("program.mlirbc"));
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  std::set<uint32_t> defined;
  std::vector<uint32_t> used;
  std::function<void(const MOp&)> walk = [&](const MOp& op) {
    EXPECT_NE(op.loc, nullptr);
    EXPECT_EQ(op.results.size(), op.result_types.size());
    for (uint32_t id : op.results) EXPECT_TRUE(defined.insert(id).second) << id;
    used.insert(used.end(), op.operands.begin(), op.operands.end());
    for (const MRegion& region : op.regions)
      for (const MBlock& block : region.blocks) {
        EXPECT_EQ(block.args.size(), block.arg_types.size());
        EXPECT_EQ(block.args.size(), block.arg_locs.size());
        for (uint32_t id : block.args) EXPECT_TRUE(defined.insert(id).second) << id;
        for (const MOp& child : block.ops) walk(child);
      }
  };
  for (const MOp& op : tree->top) walk(op);
  for (uint32_t id : used) EXPECT_TRUE(defined.count(id)) << "operand %" << id;
  for (uint32_t id : defined) EXPECT_LT(id, tree->num_values);
}

// Little-endian integers of a decoded dense attribute (tensor or array).
std::optional<std::vector<int64_t>> denseInts(const MAttr& attr) {
  if (attr.kind == MAttr::Kind::DenseArray) return attr.ints;
  if (attr.kind != MAttr::Kind::DenseElements || !attr.type ||
      attr.type->elements.empty())
    return std::nullopt;
  unsigned width = attr.type->elements[0]->width;
  if (attr.type->elements[0]->kind == MType::Kind::Index) width = 64;
  if (width != 64) return std::nullopt;
  std::vector<int64_t> ints;
  for (size_t i = 0; i + 8 <= attr.data.size(); i += 8) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t(attr.data[i + b]) << (8 * b);
    ints.push_back(int64_t(v));
  }
  // A splat stores its one element once.
  int64_t count = 1;
  for (int64_t d : attr.type->shape) count *= d;
  if (ints.size() == 1 && count > 1) ints.assign(size_t(count), ints[0]);
  return ints;
}

// The elements of "dense<...> : tensor<...>" text, flattened, as numbers
// (true/false as 1/0); nullopt for forms this test does not read (hex, complex, strings).
std::optional<std::vector<double>> textDenseNumbers(const std::string& body) {
  std::vector<double> out;
  static const std::regex token(
      R"re(0x[0-9A-Fa-f]+|true|false|-?[0-9][0-9.eE+-]*|"|\()re");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), token);
       it != std::sregex_iterator(); ++it) {
    std::string t = it->str();
    if (t == "\"" || t == "(" || t.rfind("0x", 0) == 0) return std::nullopt;
    out.push_back(t == "true" ? 1 : t == "false" ? 0 : std::stod(t));
  }
  return out;
}

// The elements of a decoded DenseElements attribute as numbers, for the
// element types this test reads.
std::optional<std::vector<double>> treeDenseNumbers(const MAttr& attr) {
  if (attr.kind != MAttr::Kind::DenseElements || !attr.type ||
      attr.type->elements.empty())
    return std::nullopt;
  const MType& e = *attr.type->elements[0];
  size_t bytes = 0;
  if (e.kind == MType::Kind::Float && (e.float_name == "f32" || e.float_name == "f64"))
    bytes = e.float_name == "f32" ? 4 : 8;
  else if (e.kind == MType::Kind::Integer && e.width >= 1 && e.width <= 64)
    bytes = (e.width + 7) / 8;
  else
    return std::nullopt;
  std::vector<double> out;
  for (size_t i = 0; i + bytes <= attr.data.size(); i += bytes) {
    uint64_t v = 0;
    for (size_t b = 0; b < bytes; ++b) v |= uint64_t(attr.data[i + b]) << (8 * b);
    if (e.kind == MType::Kind::Float && bytes == 4) {
      float f;
      uint32_t w = uint32_t(v);
      std::memcpy(&f, &w, 4);
      out.push_back(f);
    } else if (e.kind == MType::Kind::Float) {
      double d;
      std::memcpy(&d, &v, 8);
      out.push_back(d);
    } else if (e.signedness == MType::Signedness::Unsigned || e.width == 1) {
      out.push_back(double(v));
    } else {
      unsigned w = e.width;
      int64_t sv =
          w < 64 && ((v >> (w - 1)) & 1) ? int64_t(v | (~uint64_t{0} << w)) : int64_t(v);
      out.push_back(double(sv));
    }
  }
  int64_t count = 1;
  for (int64_t d : attr.type->shape) count *= d;
  if (out.size() == 1 && count > 1) out.assign(size_t(count), out[0]);
  return out;
}

// Checks one "key = value" property of the generic text against the tree;
// returns false when the value's form is not one this test understands.
bool checkProperty(const MOp& op, const std::string& key, const std::string& value) {
  static const std::regex enum_form(R"re(#stablehlo<\w+ (\w+)>)re");
  static const std::regex int_form(R"re((-?\d+) : i\d+)re");
  static const std::regex array_form(R"re(array<i64(: ([-0-9, ]*))?>)re");
  static const std::regex string_form(R"re("([^"\\]*)")re");
  std::smatch m;
  const MAttr* attr = op.attr(key);
  std::string where = op.name + " property " + key + " = " + value;
  if (std::regex_match(value, m, enum_form)) {
    EXPECT_TRUE(attr && attr->kind == MAttr::Kind::Enum && attr->str == m[1].str())
        << where;
    return true;
  }
  if (std::regex_match(value, m, int_form)) {
    EXPECT_TRUE(attr &&
                (attr->kind == MAttr::Kind::Integer || attr->kind == MAttr::Kind::Enum) &&
                attr->int_value == std::stoll(m[1]))
        << where;
    return true;
  }
  if (std::regex_match(value, m, array_form)) {
    std::vector<int64_t> want;
    std::stringstream list(m[2].str());
    for (std::string n; std::getline(list, n, ',');) want.push_back(std::stoll(n));
    auto got = attr ? denseInts(*attr) : std::nullopt;
    EXPECT_TRUE(got.has_value()) << where;
    if (got) {
      EXPECT_EQ(*got, want) << where;
    }
    return true;
  }
  static const std::regex dense_form(R"re(dense<(.*)> : tensor<([^>]*)>)re");
  if (std::regex_match(value, m, dense_form)) {
    auto want = textDenseNumbers(m[1].str());
    auto got = attr ? treeDenseNumbers(*attr) : std::nullopt;
    if (!want || !got) return false;
    size_t count = 1;  // the text's own shape: "2x2xi64"
    static const std::regex dim(R"re((\d+)x)re");
    std::string shape = m[2].str();
    for (auto it = std::sregex_iterator(shape.begin(), shape.end(), dim);
         it != std::sregex_iterator(); ++it)
      count *= std::stoul((*it)[1].str());
    if (want->size() == 1 && count > 1) want->assign(count, (*want)[0]);
    EXPECT_EQ(got->size(), want->size()) << where;
    for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
      double tolerance = std::abs((*want)[i]) * 1e-6;  // the text rounds floats
      EXPECT_NEAR((*got)[i], (*want)[i], tolerance) << where << " element " << i;
    }
    return true;
  }
  if (value == "true" || value == "false") {
    EXPECT_TRUE(attr && attr->kind == MAttr::Kind::Bool &&
                attr->int_value == (value == "true"))
        << where;
    return true;
  }
  if (std::regex_match(value, m, string_form)) {
    EXPECT_TRUE(attr && attr->kind == MAttr::Kind::String && attr->str == m[1].str())
        << where;
    return true;
  }
  return false;
}

// Op properties (enums, integers, i64 arrays, strings, booleans) hold the
// values the generic text shows: this pins the property order and names.
TEST_P(Fixture, PropertiesMatchTheGenericText) {
  std::vector<uint8_t> bytes = bytecode_test::readFileBytes(path("program.mlirbc"));
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  Outline expected = bytecode_test::readOutline(
      bytecode_test::readFileText(path("artifact.generic.mlir")));
  std::vector<const MOp*> ops;
  std::vector<OutlineItem> actual = treeOutline(*tree, &ops);
  ASSERT_EQ(actual.size(), expected.items.size());
  int checked = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    for (const auto& [key, value] : expected.items[i].props)
      checked += checkProperty(*ops[i], key, value);
  }
  EXPECT_GT(checked, 2) << "too few properties understood to mean anything";
}

INSTANTIATE_TEST_SUITE_P(Zoo, Fixture, testing::ValuesIn(fixtureNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(ZooFixtures, AllTwentyArePresent) {
  EXPECT_EQ(fixtureNames().size(), 20u);
}

}  // namespace
}  // namespace jft::frontend
