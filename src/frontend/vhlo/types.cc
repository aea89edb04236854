#include "frontend/vhlo/types.h"

#include <limits>

namespace jft::frontend::vhlo {
namespace {

// Nesting deeper than this (tuples of tuples...) is treated as malformed.
constexpr int kMaxTypeDepth = 64;

std::optional<ir::ElementType> integerElement(unsigned width, MType::Signedness sign) {
  using ir::ElementType;
  if (width == 1) return ElementType::PRED;
  bool is_unsigned = sign == MType::Signedness::Unsigned;
  switch (width) {
    case 2:
      return is_unsigned ? ElementType::U2 : ElementType::I2;
    case 4:
      return is_unsigned ? ElementType::U4 : ElementType::I4;
    case 8:
      return is_unsigned ? ElementType::U8 : ElementType::I8;
    case 16:
      return is_unsigned ? ElementType::U16 : ElementType::I16;
    case 32:
      return is_unsigned ? ElementType::U32 : ElementType::I32;
    case 64:
      return is_unsigned ? ElementType::U64 : ElementType::I64;
    default:
      return std::nullopt;
  }
}

void describeInto(const MType* type, std::string& out, int depth) {
  if (!type) {
    out += "<null type>";
    return;
  }
  if (depth > kMaxTypeDepth) {
    out += "...";
    return;
  }
  auto element = [&](size_t i) {
    describeInto(i < type->elements.size() ? type->elements[i].get() : nullptr, out,
                 depth + 1);
  };
  switch (type->kind) {
    case MType::Kind::Integer:
      if (type->signedness == MType::Signedness::Signed)
        out += "si";
      else if (type->signedness == MType::Signedness::Unsigned)
        out += "ui";
      else
        out += "i";
      out += std::to_string(type->width);
      return;
    case MType::Kind::Index:
      out += "index";
      return;
    case MType::Kind::Float:
      out += type->float_name.empty() ? "<float>" : type->float_name;
      return;
    case MType::Kind::Complex:
      out += "complex<";
      element(0);
      out += ">";
      return;
    case MType::Kind::RankedTensor:
      out += "tensor<";
      for (int64_t d : type->shape)
        out += (d == kDynamicDim || d < 0 ? std::string("?") : std::to_string(d)) + "x";
      element(0);
      out += ">";
      return;
    case MType::Kind::UnrankedTensor:
      out += "tensor<*x";
      element(0);
      out += ">";
      return;
    case MType::Kind::Tuple:
      out += "tuple<";
      for (size_t i = 0; i < type->elements.size(); ++i) {
        if (i) out += ", ";
        element(i);
      }
      out += ">";
      return;
    case MType::Kind::Token:
      out += "!stablehlo.token";
      return;
    case MType::Kind::Function:
      out += "(function type)";
      return;
    case MType::Kind::None:
      out += "none";
      return;
    case MType::Kind::Quantized:
      out += type->text.empty() ? "!quant.uniform<...>" : type->text;
      return;
    case MType::Kind::Opaque:
      out += "!" + type->dialect + "<" + type->text + ">";
      return;
  }
  out += "<unknown type>";
}

StatusOr<ir::Type> convertTypeAt(const MType* type, const OpSite& site, int depth) {
  if (!type) return site.invalid("missing type");
  if (depth > kMaxTypeDepth) return site.invalid("type nesting is too deep");
  switch (type->kind) {
    case MType::Kind::Token:
      return ir::Type::token();
    case MType::Kind::Tuple: {
      std::vector<ir::Type> elements;
      for (const MTypePtr& element : type->elements) {
        JFT_ASSIGN_OR_RETURN(ir::Type t, convertTypeAt(element.get(), site, depth + 1));
        elements.push_back(std::move(t));
      }
      return ir::Type::makeTuple(std::move(elements));
    }
    case MType::Kind::UnrankedTensor:
      return site.invalid("unranked tensor " + describeType(type) +
                          " is not supported: shapes must be static");
    case MType::Kind::Opaque:
      // A buffer (JAX's pinned refs: custom_call @CreateBuffer, @Pin, @Unpin)
      // holds one array; as a value it is that array.
      if (type->text != "buffer_v1")
        return site.invalid("expected a tensor, token or tuple type, got " +
                            describeType(type));
      [[fallthrough]];
    case MType::Kind::RankedTensor: {
      if (type->elements.empty()) return site.invalid("tensor type without element type");
      int64_t elements = 1;
      for (int64_t d : type->shape) {
        if (d == kDynamicDim || d < 0)
          return site.invalid("dynamic dimension in " + describeType(type) +
                              ": shapes must be static");
        if (d != 0 && elements > std::numeric_limits<int64_t>::max() / d)
          return site.invalid("tensor " + describeType(type) + " is too large");
        elements *= d;
      }
      JFT_ASSIGN_OR_RETURN(ir::ElementType element,
                           convertElementType(type->elements[0].get(), site));
      if (elements > std::numeric_limits<int64_t>::max() / 16)
        return site.invalid("tensor " + describeType(type) + " is too large");
      return ir::Type::tensor(element, type->shape);
    }
    default:
      return site.invalid("expected a tensor, token or tuple type, got " +
                          describeType(type));
  }
}

}  // namespace

std::string describeType(const MType* type) {
  std::string out;
  describeInto(type, out, 0);
  return out;
}

StatusOr<ir::Type> convertType(const MType* type, const OpSite& site) {
  return convertTypeAt(type, site, 0);
}

StatusOr<ir::ElementType> convertElementType(const MType* type, const OpSite& site) {
  if (!type) return site.invalid("missing element type");
  switch (type->kind) {
    case MType::Kind::Integer:
      if (auto element = integerElement(type->width, type->signedness)) return *element;
      break;
    case MType::Kind::Float:
      if (auto element = ir::parseElementType(type->float_name);
          element && ir::isFloat(*element))
        return *element;
      break;
    case MType::Kind::Complex: {
      const MType* part = type->elements.empty() ? nullptr : type->elements[0].get();
      if (part && part->kind == MType::Kind::Float) {
        if (part->float_name == "f32") return ir::ElementType::C64;
        if (part->float_name == "f64") return ir::ElementType::C128;
      }
      break;
    }
    case MType::Kind::Quantized:
      return site.unimplemented("quantized element type " + describeType(type) +
                                " is not supported");
    default:
      break;
  }
  return site.unimplemented("element type " + describeType(type) + " is not supported");
}

}  // namespace jft::frontend::vhlo
