// Hand-assembled files (test_support.h writes the primitives from the format
// document) for the paths the fixtures do not reach: older format versions,
// isolated regions, textual entries, alignment, and each kind of bad input
// with the error it must produce.
#include <gtest/gtest.h>

#include "frontend/bytecode/reader.h"
#include "test_support.h"

namespace jft::frontend {
namespace {

using bytecode_test::Bytes;
using bytecode_test::Section;

// Strings used by every file below.
const std::vector<std::string> kStrings = {"builtin", "module", "x",    "test",
                                           "op",      "sdy",    "mesh", "weights"};
enum : uint64_t {
  kBuiltinStr = 0,
  kModuleStr = 1,
  kXStr = 2,
  kTestStr = 3,
  kOpStr = 4,
  kSdyStr = 5,
  kMeshStr = 6,
  kWeightsStr = 7
};

// Attribute/type entries: (dialect index, custom?, bytes); attrs then types.
struct Entry {
  uint64_t dialect;
  bool custom;
  std::vector<uint8_t> bytes;
};

struct FileParts {
  uint64_t version = 6;
  std::vector<uint64_t> dialect_names = {kBuiltinStr};
  // Op names: (dialect index, string index).
  std::vector<std::pair<uint64_t, uint64_t>> ops = {{0, kModuleStr}};
  std::vector<Entry> attrs = {{0, true, Bytes().varint(15).data}};  // #0: unknown loc
  std::vector<Entry> types;
  std::vector<uint8_t> ir;
  bool with_properties = true;
  std::vector<std::vector<uint8_t>> properties;      // entries of the properties section
  std::vector<uint8_t> resources, resource_offsets;  // both or neither
};

std::vector<uint8_t> dialectSection(const FileParts& p) {
  Bytes b;
  b.varint(p.dialect_names.size());
  for (uint64_t name : p.dialect_names) b.varint(p.version >= 1 ? name << 1 : name);
  if (p.version >= 4) b.varint(p.ops.size());
  for (const auto& [dialect, name] : p.ops) {
    b.varint(dialect).varint(1);
    b.varint(p.version >= 5 ? (name << 1) | 1 : name);
  }
  return b.data;
}

void offsetsAndData(const FileParts& p, std::vector<uint8_t>& offsets,
                    std::vector<uint8_t>& data) {
  Bytes o, d;
  o.varint(p.attrs.size()).varint(p.types.size());
  for (const auto* list : {&p.attrs, &p.types}) {
    for (const Entry& e : *list) {
      o.varint(e.dialect).varint(1).varint((e.bytes.size() << 1) | (e.custom ? 1 : 0));
      d.raw(e.bytes);
    }
  }
  offsets = o.data;
  data = d.data;
}

std::vector<uint8_t> buildParts(const FileParts& p) {
  std::vector<uint8_t> offsets, data;
  offsetsAndData(p, offsets, data);
  std::vector<Section> sections = {
      {0, bytecode_test::stringSection(kStrings)},
      {1, dialectSection(p)},
      {3, offsets},
      {2, data},
      {4, p.ir},
  };
  if (!p.resources.empty() || !p.resource_offsets.empty()) {
    sections.push_back({5, p.resources});
    sections.push_back({6, p.resource_offsets});
  }
  if (p.with_properties) {
    Bytes props;
    if (!p.properties.empty()) props.varint(p.properties.size());
    for (const auto& entry : p.properties) props.varint(entry.size()).raw(entry);
    sections.push_back({8, props.data});
  }
  return bytecode_test::buildFile(p.version, "handmade", sections);
}

// The IR of one top-level op (name #0, no results) located at attribute #0.
std::vector<uint8_t> oneOpIr(uint64_t loc_attr = 0) {
  return Bytes().varint(1 << 1).varint(0).byte(0).varint(loc_attr).data;
}

StatusOr<MTree> read(const std::vector<uint8_t>& bytes) {
  return readBytecode(bytes.data(), bytes.size());
}

std::string errorOf(const std::vector<uint8_t>& bytes) {
  StatusOr<MTree> tree = read(bytes);
  if (tree.isOk()) return "<decoded>";
  EXPECT_EQ(tree.status().code(), StatusCode::kInvalidArgument);
  return tree.status().message();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(Handmade, MinimalFileDecodes) {
  FileParts parts;
  parts.ir = oneOpIr();
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  EXPECT_EQ(tree->producer, "handmade");
  EXPECT_EQ(tree->version, 6u);
  ASSERT_EQ(tree->top.size(), 1u);
  EXPECT_EQ(tree->top[0].name, "builtin.module");
  EXPECT_EQ(tree->top[0].loc->loc_kind, MAttr::LocKind::Unknown);
}

TEST(Handmade, RejectsWrongMagicAndNewerVersions) {
  FileParts parts;
  parts.ir = oneOpIr();
  std::vector<uint8_t> bytes = buildParts(parts);
  bytes[1] = 'X';
  EXPECT_TRUE(contains(errorOf(bytes), "magic"));
  parts.version = 7;
  EXPECT_TRUE(contains(errorOf(buildParts(parts)),
                       "at offset 0x4: expected bytecode version at most 6, found 7"));
}

TEST(Handmade, RequiredSectionsAndDuplicates) {
  FileParts parts;
  parts.ir = oneOpIr();
  parts.with_properties = false;  // required from version 5 on
  EXPECT_TRUE(
      contains(errorOf(buildParts(parts)), "missing required section 8 (properties)"));

  std::vector<uint8_t> twice = bytecode_test::buildFile(
      6, "p", {{0, bytecode_test::stringSection(kStrings)}, {0, {0x01}}});
  EXPECT_TRUE(contains(errorOf(twice), "duplicate section 0 (string)"));
  std::vector<uint8_t> bad_id = bytecode_test::buildFile(6, "p", {{9, {}}});
  EXPECT_TRUE(contains(errorOf(bad_id), "expected a section id below 9, found 9"));
}

TEST(Handmade, IndexesOutOfRangeAreNamed) {
  FileParts parts;
  parts.ir = oneOpIr(/*loc_attr=*/5);
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "section 4 (IR): at offset 0x"));
  EXPECT_TRUE(contains(errorOf(buildParts(parts)),
                       "expected an attribute index below 1, found 5"));

  parts = FileParts();
  parts.ir = oneOpIr();
  parts.ops = {{0, 77}};
  EXPECT_TRUE(
      contains(errorOf(buildParts(parts)), "expected a string index below 8, found 77"));

  parts = FileParts();
  parts.ir = Bytes().varint(1 << 1).varint(3).byte(0).varint(0).data;  // op name #3
  EXPECT_TRUE(
      contains(errorOf(buildParts(parts)), "expected an op name index below 1, found 3"));
}

TEST(Handmade, SelfReferenceIsACycleNotARecursion) {
  FileParts parts;
  // #0 = [#0]: a builtin array (code 0) holding itself.
  parts.attrs = {{0, true, Bytes().varint(0).varint(1).varint(0).data}};
  parts.ir = oneOpIr();
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "attribute #0 refers to itself"));

  // #0 = [#1], #1 = [#0]: a cycle through two entries.
  parts.attrs = {{0, true, Bytes().varint(0).varint(1).varint(1).data},
                 {0, true, Bytes().varint(0).varint(1).varint(0).data}};
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "refers to itself"));
}

TEST(Handmade, DeepNestingIsBounded) {
  FileParts parts;
  parts.attrs.clear();
  const int depth = 5000;
  for (int i = 0; i < depth; ++i)  // #i = [#(i+1)], the last one is unit (code 7)
    parts.attrs.push_back({0, true,
                           i + 1 < depth ? Bytes().varint(0).varint(1).varint(i + 1).data
                                         : Bytes().varint(7).data});
  parts.ir = oneOpIr();
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "nested deeper than"));
}

TEST(Handmade, HugeCountsAreRejectedBeforeAllocating) {
  FileParts parts;
  parts.ir = Bytes().varint(uint64_t(1) << 60).data;  // 2^59 ops, flag 0
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "expected an op count that fits"));
  // An array attribute claiming 2^40 elements.
  parts = FileParts();
  parts.attrs.push_back({0, true, Bytes().varint(0).varint(uint64_t(1) << 40).data});
  parts.ir = oneOpIr(1);
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "expected a count of attributes"));
}

TEST(Handmade, TextualEntriesStayReadable) {
  FileParts parts;
  parts.attrs.push_back({0, false, Bytes().cstr("#foo.bar<1, 2>").data});
  // The module op carries an attribute dictionary (mask bit 0) {x = #1}.
  parts.attrs.push_back(
      {0, true, Bytes().varint(1).varint(1).varint(3).varint(1).data});  // dict {#3: #1}
  parts.attrs.push_back({0, true, Bytes().varint(2).varint(kXStr).data});  // "x"
  parts.ir = Bytes().varint(1 << 1).varint(0).byte(0x01).varint(0).varint(2).data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  const MAttr* x = tree->top[0].attr("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->kind, MAttr::Kind::Opaque);
  EXPECT_EQ(x->str, "#foo.bar<1, 2>");
}

// The file without its properties section, then the properties section
// re-added with the alignment flag, padded with `pad` bytes.
std::vector<uint8_t> withAlignedProperties(uint8_t pad) {
  FileParts parts;
  parts.ir = oneOpIr();
  parts.with_properties = false;
  std::vector<uint8_t> bytes = buildParts(parts);
  bytes.push_back(0x80 | 8);  // section 8, aligned
  bytes.push_back(0x01);      // empty body
  uint64_t alignment = 8;
  while ((bytes.size() + 1) % alignment == 0) alignment *= 2;  // make padding necessary
  bytes.push_back(uint8_t((alignment << 1) | 1));
  while (bytes.size() % alignment) bytes.push_back(pad);
  return bytes;
}

TEST(Handmade, AlignedSectionsSkipPadding) {
  StatusOr<MTree> tree = read(withAlignedProperties(0xCB));
  EXPECT_TRUE(tree.isOk()) << tree.status().toString();
  EXPECT_TRUE(contains(errorOf(withAlignedProperties(0x00)),
                       "expected alignment padding byte 0xcb"));
}

TEST(Handmade, Version3FileWithBlockArgumentsAndIsolatedRegion) {
  // builtin.module with one isolated region (lazy-loading IR section, since
  // version 2) holding a block with one argument (type + location pairs
  // before version 4) and one test.op using it twice.
  FileParts parts;
  parts.version = 3;
  parts.dialect_names = {kBuiltinStr, kTestStr};
  parts.ops = {{0, kModuleStr}, {1, kOpStr}};
  parts.attrs = {{0, true, Bytes().varint(15).data},  // #0 unknown loc
                 {0, true, Bytes().varint(14).varint(2).varint(0).data},    // #1 "x"(#0)
                 {0, true, Bytes().varint(2).varint(kXStr).data}};          // #2 "x"
  parts.types = {{0, true, Bytes().varint(0).varint((32 << 2) | 0).data}};  // i32
  Bytes region;
  region.varint(1).varint(2);                    // one block, two values
  region.varint((1 << 1) | 1);                   // one op, has args
  region.varint(1).varint(0).varint(1);          // one arg: type #0, loc #1
  region.byte(0);                                // no use-list orders
  region.varint(1).byte(0x02 | 0x04).varint(0);  // test.op: results + operands, loc #0
  region.varint(1).varint(0);                    // one result: i32
  region.varint(2).varint(0).varint(0);          // operands: %0, %0
  Bytes ir;
  ir.varint(1 << 1);                  // top block: one op
  ir.varint(0).byte(0x10).varint(0);  // module: regions, loc #0
  ir.varint((1 << 1) | 1);            // one region, isolated
  ir.byte(4).varint(region.data.size()).raw(region.data);
  parts.ir = ir.data;
  parts.with_properties = false;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  const MBlock& block = tree->top.at(0).regions.at(0).blocks.at(0);
  ASSERT_EQ(block.args.size(), 1u);
  EXPECT_EQ(block.arg_types[0]->width, 32u);
  EXPECT_EQ(block.arg_locs[0]->str, "x");
  ASSERT_EQ(block.ops.size(), 1u);
  EXPECT_EQ(block.ops[0].name, "test.op");
  EXPECT_EQ(block.ops[0].operands, (std::vector<uint32_t>{block.args[0], block.args[0]}));
  ASSERT_EQ(block.ops[0].results.size(), 1u);
  EXPECT_NE(block.ops[0].results[0], block.args[0]);
}

TEST(Handmade, UndefinedValuesAreErrors) {
  FileParts parts;
  parts.version = 3;
  parts.dialect_names = {kBuiltinStr, kTestStr};
  parts.ops = {{0, kModuleStr}, {1, kOpStr}};
  parts.with_properties = false;
  Bytes region;
  region.varint(1).varint(1);             // one block, one value
  region.varint(1 << 1);                  // one op, no args
  region.varint(1).byte(0x04).varint(0);  // test.op with operands
  region.varint(1).varint(0);             // uses %0, never defined
  Bytes ir;
  ir.varint(1 << 1).varint(0).byte(0x10).varint(0).varint(
      1 << 1);  // one non-isolated region
  ir.raw(region.data);
  parts.ir = ir.data;
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "value #0 is used but never defined"));
}

}  // namespace
}  // namespace jft::frontend

namespace jft::frontend {
namespace {

TEST(Handmade, DeepRegionsAreBounded) {
  // 100 nested test.op, each with one non-isolated region of one block.
  FileParts parts;
  parts.version = 3;
  parts.dialect_names = {kBuiltinStr, kTestStr};
  parts.ops = {{0, kModuleStr}, {1, kOpStr}};
  parts.with_properties = false;
  Bytes ir;
  ir.varint(1 << 1);
  for (int i = 0; i < 100; ++i) {
    ir.varint(i == 0 ? 0 : 1).byte(0x10).varint(0).varint(1 << 1);  // op with one region
    ir.varint(1).varint(0).varint(1 << 1);  // one block, no values, one op
  }
  ir.varint(1).byte(0).varint(0);  // innermost: a plain test.op
  parts.ir = ir.data;
  EXPECT_TRUE(contains(errorOf(buildParts(parts)), "regions nested deeper than 64"));
}

}  // namespace
}  // namespace jft::frontend

namespace jft::frontend {
namespace {

TEST(Handmade, PropertiesOfOpsWeCannotNameStayOpaque) {
  FileParts parts;
  parts.dialect_names = {kBuiltinStr, kTestStr, kSdyStr};
  parts.ops = {{0, kModuleStr}, {1, kOpStr}, {2, kMeshStr}};
  parts.attrs.push_back({0, true, Bytes().varint(2).varint(kXStr).data});  // #1 "x"
  parts.properties = {
      Bytes().varint(1).data,             // one attribute reference: #1
      Bytes().varint(1).varint(9).data};  // sdy.mesh with a bad second ref
  Bytes ir;
  ir.varint(2 << 1);
  ir.varint(1).byte(0x40).varint(0).varint(0);  // test.op, properties #0
  ir.varint(2).byte(0x40).varint(0).varint(1);  // sdy.mesh, properties #1
  parts.ir = ir.data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  ASSERT_EQ(tree->top.size(), 2u);
  for (const MOp& op : tree->top) {
    const MAttr* props = op.attr("properties");
    ASSERT_NE(props, nullptr) << op.name;
    EXPECT_EQ(props->kind, MAttr::Kind::Opaque);
  }
  EXPECT_EQ(tree->top[0].attr("properties")->data, (std::vector<uint8_t>{0x03}));
}

// sdy.mesh and sdy.manual_computation carry their attributes as properties
// in name order (mesh, sym_name); a blob that fits is decoded into them.
TEST(Handmade, ShardyMeshPropertiesAreNamed) {
  FileParts parts;
  parts.dialect_names = {kBuiltinStr, kTestStr, kSdyStr};
  parts.ops = {{2, kMeshStr}};
  parts.attrs.push_back({0, true, Bytes().varint(2).varint(kXStr).data});  // #1 "x"
  parts.properties = {Bytes().varint(1).varint(1).data};  // mesh = sym_name = #1
  Bytes ir;
  ir.varint(1 << 1);
  ir.varint(0).byte(0x40).varint(0).varint(0);  // sdy.mesh, properties #0
  parts.ir = ir.data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  ASSERT_EQ(tree->top.size(), 1u);
  const MOp& mesh = tree->top[0];
  EXPECT_EQ(mesh.attr("properties"), nullptr);
  ASSERT_NE(mesh.attr("mesh"), nullptr);
  ASSERT_NE(mesh.attr("sym_name"), nullptr);
  EXPECT_EQ(mesh.attr("sym_name")->str, "x");
}

TEST(Handmade, BuiltinModulePropertiesMustFit) {
  FileParts parts;
  parts.attrs.push_back({0, true, Bytes().varint(2).varint(kXStr).data});  // #1 "x"
  parts.properties = {Bytes().varint((1 << 1) | 1).varint(0).data};  // sym_name = #1
  parts.ir = Bytes().varint(1 << 1).varint(0).byte(0x40).varint(0).varint(0).data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  ASSERT_NE(tree->top[0].attr("sym_name"), nullptr);
  EXPECT_EQ(tree->top[0].attr("sym_name")->str, "x");
  EXPECT_EQ(tree->top[0].attr("sym_visibility"), nullptr);

  parts.properties = {
      Bytes().varint((1 << 1) | 1).varint(0).varint(0).data};  // one too many
  EXPECT_TRUE(contains(errorOf(buildParts(parts)),
                       "expected the end of the properties of builtin.module"));
}

}  // namespace
}  // namespace jft::frontend

namespace jft::frontend {
namespace {

TEST(Handmade, Version1FileWithInlineIsolatedRegion) {
  // Before version 2 an isolated region follows its op inline (no section),
  // and still numbers its values from 0.
  FileParts parts;
  parts.version = 1;
  parts.dialect_names = {kBuiltinStr, kTestStr};
  parts.ops = {{0, kModuleStr}, {1, kOpStr}};
  parts.types = {{0, true, Bytes().varint(1).data}};  // index
  parts.with_properties = false;
  Bytes ir;
  ir.varint(1 << 1);                                       // top block: one op
  ir.varint(0).byte(0x10).varint(0).varint((1 << 1) | 1);  // module, one isolated region
  ir.varint(1).varint(1);                                  // one block, one value
  ir.varint((1 << 1) | 1)
      .varint(1)
      .varint(0)
      .varint(0);  // one op; one arg: index, loc #0
  ir.varint(1).byte(0x04).varint(0).varint(1).varint(0);  // test.op(%0)
  parts.ir = ir.data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  const MBlock& block = tree->top.at(0).regions.at(0).blocks.at(0);
  ASSERT_EQ(block.args.size(), 1u);
  EXPECT_EQ(block.arg_types[0]->kind, MType::Kind::Index);
  ASSERT_EQ(block.ops.size(), 1u);
  EXPECT_EQ(block.ops[0].operands, std::vector<uint32_t>{block.args[0]});
}

}  // namespace
}  // namespace jft::frontend

namespace jft::frontend {
namespace {

TEST(Handmade, DenseResourceTakesItsBlobFromTheResourceSection) {
  FileParts parts;
  parts.types = {
      {0, true, Bytes().varint(0).varint(32 << 2).data},  // #0 i32
      {0, true,
       Bytes().varint(13).varint(1).svarint(2).varint(0).data}};  // #1 tensor<2xi32>
  parts.attrs.push_back(
      {0, true, Bytes().varint(16).varint(1).varint(0).data});  // #1 dense_resource
  parts.attrs.push_back({0, true, Bytes().varint(2).varint(kXStr).data});  // #2 "x"
  parts.attrs.push_back(
      {0, true, Bytes().varint(1).varint(1).varint(2).varint(1).data});  // #3 {x = #1}
  // No external groups; builtin's group: one blob resource "weights" of 10 bytes.
  parts.resource_offsets =
      Bytes().varint(0).varint(0).varint(1).varint(kWeightsStr).varint(10).byte(0).data;
  parts.resources = Bytes().varint(1).varint(8).raw({1, 0, 0, 0, 2, 0, 0, 0}).data;
  parts.ir = Bytes().varint(1 << 1).varint(0).byte(0x01).varint(0).varint(3).data;
  StatusOr<MTree> tree = read(buildParts(parts));
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  const MAttr* x = tree->top.at(0).attr("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->kind, MAttr::Kind::DenseElements);
  EXPECT_EQ(x->name, "weights");
  EXPECT_EQ(x->type->shape, std::vector<int64_t>{2});
  EXPECT_EQ(x->data, (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0}));

  parts.resource_offsets =
      Bytes().varint(0).varint(0).varint(1).varint(kWeightsStr).varint(99).byte(0).data;
  EXPECT_TRUE(
      contains(errorOf(buildParts(parts)), "expected resource 'weights' of 99 bytes"));
}

}  // namespace
}  // namespace jft::frontend
