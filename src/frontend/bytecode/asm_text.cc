#include "frontend/bytecode/asm_text.h"

#include <cctype>
#include <cmath>
#include <cstring>

#include "frontend/bytecode/values.h"
#include "frontend/bytecode/vhlo_enums.h"

namespace jft::frontend::bytecode {
namespace {

constexpr int kMaxTextNesting = 64;

const char* const kFloatNames[] = {
    "bf16",          "f16",    "f32",      "f64",      "f80",        "f128",
    "tf32",          "f8E5M2", "f8E4M3",   "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ",
    "f8E4M3B11FNUZ", "f8E3M4", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN",   "f8E8M0FNU"};

bool isFloatName(std::string_view name) {
  for (const char* f : kFloatNames)
    if (name == f) return true;
  return false;
}

// A recursive-descent reader of the subset of MLIR's attribute and type
// syntax that builtin and VHLO print. Every method returns null (or false)
// when the text is outside that subset; the caller then keeps the text.
class TextParser {
 public:
  explicit TextParser(std::string_view text) : s_(text) {}

  bool atEnd() {
    skipSpace();
    return pos_ == s_.size();
  }

  MTypePtr type() {
    if (!enter()) return nullptr;
    MTypePtr result = typeInner();
    --depth_;
    return result;
  }

  MAttrPtr attr() {
    if (!enter()) return nullptr;
    MAttrPtr result = attrInner();
    --depth_;
    return result;
  }

 private:
  bool enter() { return ++depth_ <= kMaxTextNesting || (--depth_, false); }

  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool take(std::string_view token) {
    skipSpace();
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  static bool identChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
           c == '.';
  }
  std::string_view ident() {
    skipSpace();
    size_t start = pos_;
    if (pos_ < s_.size() &&
        (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      ++pos_;
      while (pos_ < s_.size() && identChar(s_[pos_])) ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }
  // Identifiers that stop before '.' (dialect-qualified names split there).
  std::string_view word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }
  bool quoted(std::string& out) {
    if (peek() != '"') return false;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return false;
      char e = s_[pos_++];
      if (e == 'n')
        out += '\n';
      else if (e == 't')
        out += '\t';
      else if (e == '\\' || e == '"')
        out += e;
      else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < s_.size() &&
               std::isxdigit(static_cast<unsigned char>(s_[pos_]))) {
        out += static_cast<char>(std::stoi(std::string{e, s_[pos_]}, nullptr, 16));
        ++pos_;
      } else {
        return false;
      }
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  // Skips a balanced <...> / (...) / [...] / {...} group starting at pos_.
  bool skipBalanced() {
    std::string stack;
    do {
      if (pos_ >= s_.size()) return false;
      char c = s_[pos_];
      if (c == '"') {
        std::string ignored;
        if (!quoted(ignored)) return false;
        continue;
      }
      if (c == '<' || c == '(' || c == '[' || c == '{') stack += c;
      if (c == '>' || c == ')' || c == ']' || c == '}') {
        if (stack.empty()) return false;
        stack.pop_back();
      }
      ++pos_;
    } while (!stack.empty());
    return true;
  }

  // --- types ---------------------------------------------------------------

  MTypePtr typeInner() {
    char c = peek();
    if (c == '!') return dialectType();
    if (c == '(') return functionType("builtin");
    std::string_view name = word();
    if (name.empty()) return nullptr;
    if (name == "index") return makeSimpleType("builtin", MType::Kind::Index);
    if (name == "none") return makeSimpleType("builtin", MType::Kind::None);
    if (isFloatName(name)) return makeFloatType("builtin", std::string(name));
    if (auto integer = integerType(name, "builtin")) return integer;
    if (name == "tensor") return tensorType("builtin");
    if (name == "complex" || name == "tuple") {
      if (!take("<")) return nullptr;
      auto type = makeSimpleType(
          "builtin", name == "complex" ? MType::Kind::Complex : MType::Kind::Tuple);
      auto mutable_type = std::const_pointer_cast<MType>(type);
      if (!typeList(mutable_type->elements, ">")) return nullptr;
      if (name == "complex" && mutable_type->elements.size() != 1) return nullptr;
      return type;
    }
    return nullptr;
  }

  MTypePtr integerType(std::string_view name, const char* dialect) {
    MType::Signedness signedness = MType::Signedness::Signless;
    std::string_view digits = name;
    if (name.substr(0, 2) == "si") {
      signedness = MType::Signedness::Signed;
      digits = name.substr(2);
    } else if (name.substr(0, 2) == "ui") {
      signedness = MType::Signedness::Unsigned;
      digits = name.substr(2);
    } else if (name.substr(0, 1) == "i") {
      digits = name.substr(1);
    } else {
      return nullptr;
    }
    if (digits.empty() || digits.size() > 7) return nullptr;
    unsigned width = 0;
    for (char d : digits) {
      if (!std::isdigit(static_cast<unsigned char>(d))) return nullptr;
      width = width * 10 + unsigned(d - '0');
    }
    return makeIntegerType(dialect, width, signedness);
  }

  // Comma-separated types up to `close` (consumed).
  bool typeList(std::vector<MTypePtr>& out, std::string_view close) {
    if (take(close)) return true;
    do {
      MTypePtr t = type();
      if (!t) return false;
      out.push_back(std::move(t));
    } while (take(","));
    return take(close);
  }

  MTypePtr functionType(const char* dialect) {
    auto type = newType(dialect, MType::Kind::Function);
    if (!take("(") || !typeList(type->elements, ")")) return nullptr;
    type->num_inputs = type->elements.size();
    if (!take("->")) return nullptr;
    if (peek() == '(') {
      ++pos_;
      if (!typeList(type->elements, ")")) return nullptr;
    } else {
      MTypePtr result = nestedType();
      if (!result) return nullptr;
      type->elements.push_back(result);
    }
    return type;
  }
  MTypePtr nestedType() { return type(); }

  // After "tensor" / "!vhlo.tensor_v1": <dims x element (, encoding)?>
  MTypePtr tensorType(const char* dialect) {
    if (!take("<")) return nullptr;
    auto type = newType(dialect, MType::Kind::RankedTensor);
    if (take("*")) {
      if (!take("x")) return nullptr;
      type->kind = MType::Kind::UnrankedTensor;
    } else {
      while (true) {
        skipSpace();
        size_t save = pos_;
        int64_t dim = 0;
        if (take("?")) {
          dim = kDynamicDim;
        } else if (pos_ < s_.size() &&
                   std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
          while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
            if (dim > (int64_t{1} << 50)) return nullptr;
            dim = dim * 10 + (s_[pos_++] - '0');
          }
        } else {
          break;
        }
        if (pos_ >= s_.size() || s_[pos_] != 'x') {
          pos_ = save;
          break;
        }
        ++pos_;
        type->shape.push_back(dim);
      }
    }
    MTypePtr element = nestedType();
    if (!element) return nullptr;
    type->elements.push_back(element);
    if (take(",")) {
      type->encoding = attr();
      if (!type->encoding) return nullptr;
    }
    if (!take(">")) return nullptr;
    return type;
  }

  MTypePtr dialectType() {
    size_t start = pos_;
    take("!");
    std::string_view dialect = word();
    if (dialect.empty()) return nullptr;
    if (dialect != "vhlo") {
      // Any other dialect: keep the text, checking only that it is balanced.
      if (!take(".")) return nullptr;
      ident();
      if (peek() == '<' && !skipBalanced()) return nullptr;
      return makeOpaqueType(std::string(dialect),
                            std::string(s_.substr(start, pos_ - start)));
    }
    if (!take(".")) return nullptr;
    std::string_view name = word();
    if (name.size() < 4 || name.substr(name.size() - 3) != "_v1") return nullptr;
    std::string_view base = name.substr(0, name.size() - 3);
    if (base == "tf31" || base == "tf32")
      return makeFloatType("vhlo", "tf32");  // sic: VHLO spells it tf31_v1
    if (isFloatName(base)) return makeFloatType("vhlo", std::string(base));
    if (base == "bool") return makeIntegerType("vhlo", 1, MType::Signedness::Signless);
    if (base == "index") return makeSimpleType("vhlo", MType::Kind::Index);
    if (base == "token") return makeSimpleType("vhlo", MType::Kind::Token);
    if (base == "none") return makeSimpleType("vhlo", MType::Kind::None);
    if (base == "witness") return makeOpaqueType("vhlo", "witness_v1");
    if (auto integer = integerType(base, "vhlo")) return integer;
    if (base == "tensor") return tensorType("vhlo");
    if (base == "func") {
      if (!take("<")) return nullptr;
      MTypePtr f = functionType("vhlo");
      return f && take(">") ? f : nullptr;
    }
    if (base == "complex" || base == "unranked_tensor" || base == "tuple") {
      auto type = newType("vhlo", base == "complex" ? MType::Kind::Complex
                                  : base == "tuple" ? MType::Kind::Tuple
                                                    : MType::Kind::UnrankedTensor);
      if (!take("<") || !typeList(type->elements, ">")) return nullptr;
      if (type->kind != MType::Kind::Tuple && type->elements.size() != 1) return nullptr;
      return type;
    }
    return nullptr;
  }

  // --- attributes ----------------------------------------------------------

  std::shared_ptr<MAttr> newAttr(MAttr::Kind kind, const char* dialect = "builtin") {
    return bytecode::newAttr(dialect, kind);
  }

  MAttrPtr attrInner() {
    char c = peek();
    if (c == '#') return hashAttr();
    if (c == '[') {
      ++pos_;
      auto a = newAttr(MAttr::Kind::Array);
      if (!attrList(a->elements, "]")) return nullptr;
      return a;
    }
    if (c == '{') return dictionary("builtin");
    if (c == '"') {
      auto a = newAttr(MAttr::Kind::String);
      if (!quoted(a->str)) return nullptr;
      if (take(":")) {
        a->type = type();
        if (!a->type) return nullptr;
      }
      return a;
    }
    if (c == '@') return symbolRef();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return numberAttr();
    size_t save = pos_;
    std::string_view name = word();
    if (name == "unit") return newAttr(MAttr::Kind::Unit);
    if (name == "true" || name == "false") {
      auto a = newAttr(MAttr::Kind::Bool);
      a->int_value = name == "true";
      a->type = makeIntegerType("builtin", 1, MType::Signedness::Signless);
      return a;
    }
    if (name == "array") return denseArray();
    pos_ = save;
    MTypePtr t = type();
    if (!t) return nullptr;
    auto a = newAttr(MAttr::Kind::TypeAttr);
    a->type = t;
    return a;
  }

  bool attrList(std::vector<MAttrPtr>& out, std::string_view close) {
    if (take(close)) return true;
    do {
      MAttrPtr a = attr();
      if (!a) return false;
      out.push_back(std::move(a));
    } while (take(","));
    return take(close);
  }

  MAttrPtr dictionary(const char* dialect) {
    if (!take("{")) return nullptr;
    auto a = newAttr(MAttr::Kind::Dictionary, dialect);
    if (take("}")) return a;
    do {
      std::string key;
      if (peek() == '"') {
        if (!quoted(key)) return nullptr;
      } else if (peek() == '#') {  // VHLO dictionaries key by attribute
        MAttrPtr k = attr();
        if (!k || k->kind != MAttr::Kind::String) return nullptr;
        key = k->str;
      } else {
        key = std::string(ident());
        if (key.empty()) return nullptr;
      }
      MAttrPtr value = take("=") ? attr() : newAttr(MAttr::Kind::Unit);
      if (!value) return nullptr;
      a->entries.emplace_back(std::move(key), std::move(value));
    } while (take(","));
    return take("}") ? a : nullptr;
  }

  MAttrPtr symbolRef() {
    auto a = newAttr(MAttr::Kind::SymbolRef);
    take("@");
    if (peek() == '"') {
      if (!quoted(a->str)) return nullptr;
    } else {
      a->str = std::string(ident());
    }
    while (take("::")) {
      MAttrPtr nested = symbolRef();
      if (!nested) return nullptr;
      a->elements.push_back(nested);
    }
    return a;
  }

  // An integer or float literal with an optional ": type".
  MAttrPtr numberAttr() {
    char first = peek();
    if (first != '-' && !std::isdigit(static_cast<unsigned char>(first))) return nullptr;
    size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    bool is_float = false;
    bool hex = s_.substr(pos_, 2) == "0x";
    if (hex) pos_ += 2;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (std::isxdigit(static_cast<unsigned char>(c)) &&
          (hex || std::isdigit(static_cast<unsigned char>(c)))) {
        ++pos_;
      } else if (!hex && (c == '.' || c == 'e' || c == 'E' ||
                          ((c == '+' || c == '-') &&
                           (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    std::string literal(s_.substr(start, pos_ - start));
    MTypePtr t;
    if (take(":")) {
      t = type();
      if (!t) return nullptr;
    }
    if (t && t->kind == MType::Kind::Float) is_float = true;
    if (is_float) {
      auto a = newAttr(MAttr::Kind::Float);
      a->type = t ? t : makeFloatType("builtin", "f64");
      if (hex) {
        uint64_t bits = std::strtoull(literal.c_str(), nullptr, 16);
        a->float_value = floatBitsToDouble(a->type->float_name, {bits});
        a->ints = {int64_t(bits)};
      } else {
        a->float_value = std::strtod(literal.c_str(), nullptr);
      }
      return a;
    }
    auto a = newAttr(MAttr::Kind::Integer);
    a->type = t ? t : makeIntegerType("builtin", 64, MType::Signedness::Signless);
    a->int_value = literal[0] == '-'
                       ? std::strtoll(literal.c_str(), nullptr, 0)
                       : int64_t(std::strtoull(literal.c_str(), nullptr, 0));
    if (isI1(*a->type)) a->kind = MAttr::Kind::Bool;
    return a;
  }

  // array<i64: 1, 2, 3>
  MAttrPtr denseArray() {
    if (!take("<")) return nullptr;
    auto a = newAttr(MAttr::Kind::DenseArray);
    a->type = type();
    if (!a->type) return nullptr;
    auto width = integerStorageWidth(*a->type);
    if (!width || *width > 64) return nullptr;
    unsigned bytes = (*width + 7) / 8;
    if (take(":")) {
      do {
        skipSpace();
        size_t start = pos_;
        if (take("true")) {
          a->ints.push_back(1);
        } else if (take("false")) {
          a->ints.push_back(0);
        } else {
          if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
          while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
            ++pos_;
          if (pos_ == start) return nullptr;
          a->ints.push_back(std::strtoll(
              std::string(s_.substr(start, pos_ - start)).c_str(), nullptr, 10));
        }
        for (unsigned b = 0; b < bytes; ++b)
          a->data.push_back(uint8_t(uint64_t(a->ints.back()) >> (8 * b)));
      } while (take(","));
    }
    return take(">") ? a : nullptr;
  }

  MAttrPtr hashAttr() {
    size_t start = pos_;
    take("#");
    std::string_view dialect = word();
    if (dialect == "vhlo") {
      if (take("<")) return vhloEnum();
      if (take(".")) return vhloAttr();
      return nullptr;
    }
    // Another dialect: keep the text (balanced) as Opaque.
    if (take(".")) ident();
    if (peek() == '<' && !skipBalanced()) return nullptr;
    auto a = newAttr(MAttr::Kind::Opaque, "");
    a->dialect = std::string(dialect);
    a->str = std::string(s_.substr(start, pos_ - start));
    return a;
  }

  MAttrPtr vhloEnum() {
    std::string_view mnemonic = word();
    std::string_view value = word();
    if (!take(">")) return nullptr;
    for (const VhloEnum& info : vhloEnums()) {
      if (info.mnemonic != mnemonic) continue;
      for (size_t i = 0; i < info.cases.size(); ++i) {
        if (info.cases[i].empty() || info.cases[i] != value) continue;
        auto a = newAttr(MAttr::Kind::Enum, "vhlo");
        a->name = "vhlo." + std::string(mnemonic);
        a->int_value = int64_t(i);
        a->str = std::string(value);
        return a;
      }
    }
    return nullptr;
  }

  MAttrPtr intListField() {
    auto a = newAttr(MAttr::Kind::IntList, "vhlo");
    if (!take("[")) return nullptr;
    if (take("]")) return a;
    do {
      MAttrPtr n = numberAttr();
      if (!n || n->kind != MAttr::Kind::Integer) return nullptr;
      a->ints.push_back(n->int_value);
    } while (take(","));
    return take("]") ? a : nullptr;
  }

  // struct(params): "<name = value, ...>" with fields in a known order.
  MAttrPtr vhloStruct(const std::string& name) {
    auto a = newAttr(MAttr::Kind::Struct, "vhlo");
    a->name = "vhlo." + name;
    do {
      std::string field(ident());
      if (field.empty() || !take("=")) return nullptr;
      MAttrPtr value;
      if (peek() == '[' &&
          (field.find("indices") != std::string::npos || field == "bounds")) {
        value = intListField();
      } else {
        value = attr();
        if (value && value->kind == MAttr::Kind::Integer) {
          auto plain = newAttr(MAttr::Kind::Integer, "vhlo");
          plain->int_value = value->int_value;
          value = plain;
        } else if (value && value->kind == MAttr::Kind::Float) {
          auto plain = newAttr(MAttr::Kind::Float, "vhlo");
          plain->float_value = value->float_value;
          value = plain;
        }
      }
      if (!value) return nullptr;
      a->entries.emplace_back(std::move(field), std::move(value));
    } while (take(","));
    return take(">") ? a : nullptr;
  }

  MAttrPtr vhloAttr() {
    std::string name(word());
    if (!take("<")) return nullptr;
    MAttrPtr inner;
    if (name == "bool_v1" || name == "string_v1" || name == "integer_v1" ||
        name == "float_v1" || name == "type_v1" || name == "array_v1") {
      inner = attr();
      if (name == "float_v1" && inner && inner->kind == MAttr::Kind::Integer)
        inner = nullptr;
    } else if (name == "dict_v1") {
      inner = dictionary("vhlo");
    } else if (name == "output_operand_alias_v1" || name == "type_extensions_v1" ||
               name == "result_accuracy_v1" || name == "sub_axis_info_v1" ||
               name == "axis_ref_v1" || name == "replica_group_mesh_axes_v1" ||
               name == "mesh_axis_v1" || name == "mesh_v1") {
      return vhloStruct(name);
    }
    if (!inner || !take(">")) return nullptr;
    auto a = std::make_shared<MAttr>(*inner);
    a->dialect = "vhlo";
    return a;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

MAttrPtr parseAttrAsm(std::string_view dialect, std::string_view text) {
  TextParser parser(text);
  if (MAttrPtr attr = parser.attr(); attr && parser.atEnd()) return attr;
  auto attr = newAttr(std::string(dialect), MAttr::Kind::Opaque);
  attr->str = std::string(text);
  return attr;
}

MTypePtr parseTypeAsm(std::string_view dialect, std::string_view text) {
  TextParser parser(text);
  if (MTypePtr type = parser.type(); type && parser.atEnd()) return type;
  return makeOpaqueType(std::string(dialect), std::string(text));
}

}  // namespace jft::frontend::bytecode
