#include "ir/op_parser.h"

#include "ir/attribute_parser.h"
#include "ir/literal_parser.h"
#include "ir/type_parser.h"

namespace jft::ir {
namespace {

// Regions nest (while in case in while...); a bound keeps hostile text from
// exhausting the stack.
constexpr int kMaxRegionDepth = 64;

}  // namespace

bool OpParser::parseValueName(std::string& out) {
  if (!cursor_.expect("%")) return false;
  auto name = cursor_.word();
  if (!name) return cursor_.fail("a value name after '%'");
  out = *name;
  return true;
}

bool OpParser::defineValue(const std::string& name, size_t offset,
                           std::vector<ValueId> ids) {
  if (!values_.emplace(name, std::move(ids)).second)
    return cursor_.failAt(offset, "value %" + name + " is defined twice");
  return true;
}

bool OpParser::parseUse(ValueId& out) {
  const size_t at = cursor_.offset();
  std::string name;
  if (!parseValueName(name)) return false;
  auto it = values_.find(name);
  if (it == values_.end()) return cursor_.failAt(at, "use of undefined value %" + name);
  int64_t index = -1;
  if (cursor_.consume("#") && !cursor_.integer(index)) return false;
  const auto& ids = it->second;
  if (index < 0) {
    if (ids.size() != 1)
      return cursor_.failAt(at, "%" + name + " has " + std::to_string(ids.size()) +
                                    " results: name one as %" + name + "#N");
    out = ids[0];
    return true;
  }
  if (index >= static_cast<int64_t>(ids.size()))
    return cursor_.failAt(at, "%" + name + " has no result #" + std::to_string(index));
  out = ids[index];
  return true;
}

bool OpParser::parseUseList(std::vector<ValueId>& out) {
  do {
    out.emplace_back();
    if (!parseUse(out.back())) return false;
  } while (cursor_.consume(","));
  return true;
}

bool OpParser::parseOptionalLocation(LocId& out) {
  if (!cursor_.consume("loc(")) return true;
  return parseLocation(cursor_, module_.locations, out) && cursor_.expect(")");
}

bool OpParser::parseFunction() {
  if (!cursor_.expect("func.func")) return false;
  Function function;
  if (cursor_.consumeKeyword("public"))
    function.is_public = true;
  else
    cursor_.consumeKeyword("private");
  if (!cursor_.expect("@")) return false;
  auto name = cursor_.word();
  if (!name) return cursor_.fail("a function name");
  function.name = *name;
  values_.clear();
  if (!cursor_.expect("(")) return false;
  if (!cursor_.consume(")")) {
    do {
      const size_t at = cursor_.offset();
      std::string arg;
      Type type;
      if (!parseValueName(arg) || !cursor_.expect(":") || !parseType(cursor_, type))
        return false;
      NamedAttrs attrs;
      if (cursor_.peek() == '{' && !parseAttrDict(cursor_, attrs)) return false;
      const ValueId id = module_.newValue(type);
      if (!defineValue(arg, at, {id})) return false;
      function.body.args.push_back(id);
      function.arg_attrs.push_back(std::move(attrs));
    } while (cursor_.consume(","));
    if (!cursor_.expect(")")) return false;
  }
  if (cursor_.consume("->")) {
    const bool list = cursor_.consume("(");
    if (!list || !cursor_.consume(")")) {
      do {
        Type type;
        NamedAttrs attrs;
        if (!parseType(cursor_, type)) return false;
        if (list && cursor_.peek() == '{' && !parseAttrDict(cursor_, attrs)) return false;
        function.result_types.push_back(std::move(type));
        function.result_attrs.push_back(std::move(attrs));
      } while (list && cursor_.consume(","));
      if (list && !cursor_.expect(")")) return false;
    }
  }
  if (!cursor_.expect("{") || !parseRegionBody(function.body, true, 0) ||
      !parseOptionalLocation(function.loc))
    return false;
  module_.functions.push_back(std::move(function));
  return true;
}

bool OpParser::parseRegionBody(Region& region, bool in_function_body, int depth) {
  while (!cursor_.consume("}")) {
    if (cursor_.failed()) return false;
    if (cursor_.atEnd()) return cursor_.fail("'}' closing a region");
    if (!parseOp(region, in_function_body, depth)) return false;
  }
  return true;
}

bool OpParser::parseResultNames(std::vector<std::pair<std::string, size_t>>& names,
                                size_t& count) {
  count = 0;
  do {
    std::string name;
    if (!parseValueName(name)) return false;
    int64_t n = 1;
    if (names.empty() && cursor_.consume(":")) {
      if (!cursor_.integer(n)) return false;
      if (n < 1 || n > 1 << 16) return cursor_.fail("a result count from 1 to 65536");
    }
    names.emplace_back(std::move(name), static_cast<size_t>(n));
    count += static_cast<size_t>(n);
  } while (names.size() == 1 && names[0].second == 1
               ? cursor_.consume(",")
               : names.size() > 1 && cursor_.consume(","));
  return true;
}

bool OpParser::parseRegions(Op& op, int depth) {
  if (depth >= kMaxRegionDepth) return cursor_.fail("regions nested less deeply");
  if (!cursor_.expect("(")) return false;
  do {
    if (!cursor_.expect("{")) return false;
    Region region;
    if (cursor_.consume("^")) {
      if (!cursor_.word()) return cursor_.fail("a block name");
      if (!cursor_.expect("(")) return false;
      if (!cursor_.consume(")")) {
        do {
          const size_t at = cursor_.offset();
          std::string name;
          Type type;
          if (!parseValueName(name) || !cursor_.expect(":") || !parseType(cursor_, type))
            return false;
          const ValueId id = module_.newValue(type);
          if (!defineValue(name, at, {id})) return false;
          region.args.push_back(id);
        } while (cursor_.consume(","));
        if (!cursor_.expect(")")) return false;
      }
      if (!cursor_.expect(":")) return false;
    }
    if (!parseRegionBody(region, false, depth + 1)) return false;
    op.regions.push_back(std::move(region));
  } while (cursor_.consume(","));
  return cursor_.expect(")");
}

bool OpParser::parseSignature(const Op& op, size_t result_count,
                              std::vector<Type>& results) {
  const size_t at = cursor_.offset();
  auto operandMismatch = [&](size_t i, const Type& written) {
    return cursor_.failAt(at, "operand #" + std::to_string(i) + " has type " +
                                  module_.typeOf(op.operands[i]).str() + ", not " +
                                  written.str());
  };
  if (!cursor_.consume("(")) {
    Type type;
    if (!parseType(cursor_, type)) return false;
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (module_.typeOf(op.operands[i]) != type) return operandMismatch(i, type);
    if (result_count != 1)
      return cursor_.failAt(at,
                            "a single type is for an op of one result; this one has " +
                                std::to_string(result_count) + ": write (...) -> (...)");
    results = {type};
    return true;
  }
  std::vector<Type> operands;
  if (!cursor_.consume(")")) {
    do {
      operands.emplace_back();
      if (!parseType(cursor_, operands.back())) return false;
    } while (cursor_.consume(","));
    if (!cursor_.expect(")")) return false;
  }
  if (operands.size() != op.operands.size())
    return cursor_.failAt(at, std::to_string(op.operands.size()) + " operands but " +
                                  std::to_string(operands.size()) + " operand types");
  for (size_t i = 0; i < operands.size(); ++i)
    if (module_.typeOf(op.operands[i]) != operands[i])
      return operandMismatch(i, operands[i]);
  if (!cursor_.expect("->")) return false;
  results.clear();
  if (cursor_.consume("(")) {
    if (!cursor_.consume(")")) {
      do {
        results.emplace_back();
        if (!parseType(cursor_, results.back())) return false;
      } while (cursor_.consume(","));
      if (!cursor_.expect(")")) return false;
    }
  } else {
    results.emplace_back();
    if (!parseType(cursor_, results.back())) return false;
  }
  if (results.size() != result_count)
    return cursor_.failAt(at, std::to_string(result_count) + " results named but " +
                                  std::to_string(results.size()) + " result types");
  return true;
}

bool OpParser::parseOp(Region& region, bool in_function_body, int depth) {
  std::vector<std::pair<std::string, size_t>> names;
  size_t result_count = 0;
  const size_t names_at = cursor_.offset();
  if (cursor_.peek() == '%' &&
      (!parseResultNames(names, result_count) || !cursor_.expect("=")))
    return false;
  Op op;
  const size_t name_at = cursor_.offset();
  if (cursor_.consumeKeyword("return") || cursor_.consumeKeyword("func.return")) {
    op.kind = OpKind::Return;
  } else if (cursor_.consumeKeyword("call") || cursor_.consumeKeyword("func.call")) {
    op.kind = OpKind::Call;
  } else {
    auto word = cursor_.word();
    if (!word) return cursor_.fail("an op name");
    std::string_view name = *word;
    std::optional<OpKind> kind;
    if (name.starts_with("stablehlo.")) kind = parseOpKind(name.substr(10));
    if (!kind) return cursor_.failAt(name_at, "unknown op '" + std::string(name) + "'");
    op.kind = *kind;
  }
  (void)in_function_body;  // `return` and `stablehlo.return` are one op kind
  if (op.kind == OpKind::Return) {
    if (result_count) return cursor_.failAt(names_at, "return has no results");
    if (cursor_.peek() == '%') {
      if (!parseUseList(op.operands) || !cursor_.expect(":")) return false;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        if (i && !cursor_.expect(",")) return false;
        Type type;
        const size_t at = cursor_.offset();
        if (!parseType(cursor_, type)) return false;
        if (module_.typeOf(op.operands[i]) != type)
          return cursor_.failAt(at, "returned value #" + std::to_string(i) +
                                        " has type " +
                                        module_.typeOf(op.operands[i]).str());
      }
    }
    if (!parseOptionalLocation(op.loc)) return false;
    region.ops.push_back(std::move(op));
    return true;
  }
  if (op.kind == OpKind::Call && cursor_.consume("@")) {
    auto callee = cursor_.word();
    if (!callee) return cursor_.fail("a callee name");
    op.attrs.emplace_back("callee", SymbolRef{std::string(*callee)});
    if (!cursor_.expect("(")) return false;
    if (!cursor_.consume(")") && (!parseUseList(op.operands) || !cursor_.expect(")")))
      return false;
  }
  LiteralText literal;
  const bool has_literal = op.kind == OpKind::Constant && cursor_.startsWith("dense<");
  if (has_literal && !parseLiteralText(cursor_, literal)) return false;
  if (op.operands.empty() && cursor_.peek() == '%' && !parseUseList(op.operands))
    return false;
  if (cursor_.peek() == '{') {
    NamedAttrs attrs;
    if (!parseAttrDict(cursor_, attrs)) return false;
    for (auto& entry : attrs) op.attrs.push_back(std::move(entry));
  }
  if (cursor_.peek() == '(' && !parseRegions(op, depth)) return false;
  std::vector<Type> result_types;
  if (!cursor_.expect(":") || !parseSignature(op, result_count, result_types))
    return false;
  if (has_literal) {
    if (result_types.size() != 1)
      return cursor_.failAt(literal.offset, "a constant has one result");
    DenseElements dense;
    if (!buildDense(cursor_, literal, result_types[0], dense)) return false;
    op.attrs.insert(op.attrs.begin(), {"value", std::move(dense)});
  }
  for (const Type& type : result_types) op.results.push_back(module_.newValue(type));
  size_t next = 0;
  for (auto& [name, count] : names) {
    std::vector<ValueId> ids(op.results.begin() + next,
                             op.results.begin() + next + count);
    next += count;
    if (!defineValue(name, names_at, std::move(ids))) return false;
  }
  if (!parseOptionalLocation(op.loc)) return false;
  region.ops.push_back(std::move(op));
  return true;
}

}  // namespace jft::ir
