#include "ttir_syntax.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ttir_text.h"

namespace jft::codegen::ttir::testing {
namespace {

// ---------------------------------------------------------------- text ----

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Splits at `sep` where no bracket (<>, (), [], {}) or string is open.
std::vector<std::string> splitTop(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    const bool matches = depth == 0 && s.substr(i, sep.size()) == sep;
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' && i > 0 && s[i - 1] == '-') continue;  // the arrow "->"
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (matches) {
      out.emplace_back(trim(s.substr(start, i - start)));
      start = i + sep.size();
      i += sep.size() - 1;
    }
  }
  out.emplace_back(trim(s.substr(start)));
  return out;
}

// The position of the last top-level occurrence of `sep`, or npos.
size_t findLastTop(std::string_view s, std::string_view sep) {
  int depth = 0;
  bool quoted = false;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    const bool closing = c == '>' || c == ')' || c == ']' || c == '}';
    // An opening separator matches where it opens; a closing one where it closes.
    if (!closing && depth == 0 && s.substr(i, sep.size()) == sep) found = i;
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' && i > 0 && s[i - 1] == '-') continue;
    if (closing) --depth;
    if (closing && depth == 0 && s.substr(i, sep.size()) == sep) found = i;
  }
  return found;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

// "%name" or "%name#3" tokens of `s`, outside strings.
std::vector<std::string> ssaTokens(std::string_view s) {
  std::vector<std::string> out;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (quoted || s[i] != '%') continue;
    size_t j = i + 1;
    while (j < s.size() && (isNameChar(s[j]) || s[j] == '#')) ++j;
    out.emplace_back(s.substr(i, j - i));
    i = j - 1;
  }
  return out;
}

// ---------------------------------------------------------------- types ---

struct TType {
  std::vector<int64_t> dims;  // empty: a scalar or a pointer
  std::string element;        // "f32", "!tt.ptr<f16>"
  bool tensor = false;
  bool operator==(const TType&) const = default;
  bool isPtr() const { return startsWith(element, "!tt.ptr<"); }
  std::string pointee() const {  // "!tt.ptr<f16>" -> "f16", "!tt.ptr<f16, 1>" too
    std::string inner = element.substr(8, element.size() - 9);
    return std::string(trim(inner.substr(0, inner.find(','))));
  }
  TType with(std::string e) const { return {dims, std::move(e), tensor}; }
};

const std::set<std::string> kScalars = {
    "i1",  "i8",  "i16",      "i32",    "i64",        "f16",       "bf16",
    "f32", "f64", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"};

bool isFloatName(std::string_view e) {
  return !e.empty() && (e[0] == 'f' || e[0] == 'b');
}
bool isIntName(std::string_view e) {
  return !e.empty() && e[0] == 'i';
}
int widthOf(std::string_view e) {
  if (e == "f64") return 64;
  if (e == "f32") return 32;
  if (e == "f16" || e == "bf16") return 16;
  if (startsWith(e, "f8")) return 8;
  if (isIntName(e)) return std::stoi(std::string(e.substr(1)));
  return 64;  // pointers
}

std::optional<std::string> parseElement(std::string_view s) {
  s = trim(s);
  if (kScalars.count(std::string(s))) return std::string(s);
  if (startsWith(s, "!tt.ptr<") && endsWith(s, ">")) {
    std::string_view inner = s.substr(8, s.size() - 9);
    auto parts = splitTop(inner, ",");
    if (parts.size() > 2) return std::nullopt;
    if (!parseElement(parts[0])) return std::nullopt;
    return std::string(s);
  }
  return std::nullopt;
}

std::optional<TType> parseType(std::string_view s, std::string* why) {
  s = trim(s);
  if (startsWith(s, "tensor<") && endsWith(s, ">")) {
    std::string_view inner = s.substr(7, s.size() - 8);
    TType t;
    t.tensor = true;
    size_t pos = 0;
    while (pos < inner.size() && std::isdigit(static_cast<unsigned char>(inner[pos]))) {
      size_t end = pos;
      while (end < inner.size() && std::isdigit(static_cast<unsigned char>(inner[end])))
        ++end;
      if (end >= inner.size() || inner[end] != 'x') break;
      const int64_t d = std::stoll(std::string(inner.substr(pos, end - pos)));
      if (d <= 0 || (d & (d - 1)) != 0) {
        *why = "tensor dimension " + std::to_string(d) + " is not a power of two";
        return std::nullopt;
      }
      t.dims.push_back(d);
      pos = end + 1;
    }
    if (t.dims.empty()) {
      *why = "tensor type without dimensions: " + std::string(s);
      return std::nullopt;
    }
    auto e = parseElement(inner.substr(pos));
    if (!e) {
      *why = "unknown element type in " + std::string(s);
      return std::nullopt;
    }
    t.element = *e;
    return t;
  }
  auto e = parseElement(s);
  if (!e) {
    *why = "unknown type '" + std::string(s) + "'";
    return std::nullopt;
  }
  return TType{{}, *e, false};
}

std::string str(const TType& t) {
  if (!t.tensor) return t.element;
  std::string out = "tensor<";
  for (int64_t d : t.dims) out += std::to_string(d) + "x";
  return out + t.element + ">";
}

// ---------------------------------------------------------------- ops -----

enum class Form {
  kSame,        // op %a, %b : T
  kCompare,     // op pred, %a, %b : T      -> i1
  kCast,        // op %a : T to U
  kArrow,       // op %a : T -> U
  kSelect,      // arith.select %c, %a, %b : C, T  |  : T
  kAddPtr,      // tt.addptr %p, %o : P, O
  kLoad,        // tt.load %p[, %m[, %o]] ... : P
  kStore,       // tt.store %p, %v[, %m] ... : P
  kConstant,    // arith.constant ATTR : T  |  true / false
  kFunctional,  // op operands attrs : (T...) -> R
  kDot,         // tt.dot %a, %b, %c ... : A * B -> C
  kProgramId,   // tt.get_program_id x : i32
  kMakeRange,   // tt.make_range {end = E : i32, start = S : i32} : tensor<Nxi32>
  kTerminator,  // tt.return / scf.yield / tt.reduce.return [%a... : T...]
  kClampF,      // tt.clampf %x, %lo, %hi, propagateNan = all : T
  kOther,       // accepted, suffix types only parsed
};

struct OpInfo {
  Form form;
  int min_operands = -1, max_operands = -1;  // -1: not counted
};

const std::map<std::string, OpInfo>& opTable() {
  static const std::map<std::string, OpInfo> table = [] {
    std::map<std::string, OpInfo> t;
    // Exactly the arith ops Triton 3.6's TTIR -> TTGIR conversion accepts.
    for (const char* op :
         {"addf",     "subf",    "mulf",    "divf",  "remf",      "maximumf",
          "minimumf", "maxnumf", "minnumf", "addi",  "subi",      "muli",
          "divsi",    "divui",   "remsi",   "remui", "ceildivsi", "floordivsi",
          "andi",     "ori",     "xori",    "shli",  "shrsi",     "shrui",
          "maxsi",    "maxui",   "minsi",   "minui"})
      t[std::string("arith.") + op] = {Form::kSame, 2, 2};
    for (const char* op : {"cmpf", "cmpi"})
      t[std::string("arith.") + op] = {Form::kCompare, 2, 2};
    for (const char* op : {"extf", "truncf", "extsi", "extui", "trunci", "sitofp",
                           "uitofp", "fptosi", "fptoui"})
      t[std::string("arith.") + op] = {Form::kCast, 1, 1};
    t["arith.select"] = {Form::kSelect, 3, 3};
    t["arith.constant"] = {Form::kConstant, 0, 0};
    // And the math ops it accepts (tanh, atan2, powf, ctlz... are not).
    for (const char* op : {"exp", "exp2", "floor", "ceil", "cos", "sin", "log", "log2",
                           "erf", "absf", "absi", "sqrt", "rsqrt"})
      t[std::string("math.") + op] = {Form::kSame, 1, 1};
    t["math.fma"] = {Form::kSame, 3, 3};
    t["tt.precise_divf"] = {Form::kSame, 2, 2};
    t["tt.precise_sqrt"] = {Form::kSame, 1, 1};
    t["tt.mulhiui"] = {Form::kSame, 2, 2};
    t["tt.clampf"] = {Form::kClampF, 3, 3};
    for (const char* op : {"splat", "broadcast", "expand_dims", "bitcast", "fp_to_fp",
                           "reshape", "trans", "int_to_ptr", "ptr_to_int", "histogram"})
      t[std::string("tt.") + op] = {Form::kArrow, 1, 1};
    t["tt.cat"] = {Form::kOther, 2, 2};
    t["tt.join"] = {Form::kOther, 2, 2};
    t["tt.split"] = {Form::kOther, 1, 1};
    t["tt.addptr"] = {Form::kAddPtr, 2, 2};
    t["tt.load"] = {Form::kLoad, 1, 3};
    t["tt.store"] = {Form::kStore, 2, 3};
    t["tt.extern_elementwise"] = {Form::kFunctional, 1, 8};
    t["tt.reduce"] = {Form::kFunctional, 1, 16};
    t["tt.scan"] = {Form::kFunctional, 1, 16};
    t["tt.atomic_rmw"] = {Form::kFunctional, 2, 3};
    t["tt.atomic_cas"] = {Form::kFunctional, 3, 3};
    t["tt.dot"] = {Form::kDot, 3, 3};
    t["tt.get_program_id"] = {Form::kProgramId, 0, 0};
    t["tt.get_num_programs"] = {Form::kProgramId, 0, 0};
    t["tt.make_range"] = {Form::kMakeRange, 0, 0};
    t["tt.return"] = {Form::kTerminator};
    t["tt.reduce.return"] = {Form::kTerminator};
    t["tt.scan.return"] = {Form::kTerminator};
    t["scf.yield"] = {Form::kTerminator};
    t["scf.condition"] = {Form::kOther};
    t["scf.for"] = {Form::kOther};
    t["scf.if"] = {Form::kOther};
    t["scf.while"] = {Form::kOther};
    t["tt.assert"] = {Form::kOther};
    t["tt.print"] = {Form::kOther};
    t["tt.call"] = {Form::kOther};
    t["tt.gather"] = {Form::kOther};
    // tl.debug_barrier: a CTA-wide barrier (also orders global memory).
    t["gpu.barrier"] = {Form::kOther, 0, 0};
    return t;
  }();
  return table;
}

const std::set<std::string> kCmpf = {"false", "oeq", "ogt", "oge", "olt", "ole",
                                     "one",   "ord", "ueq", "ugt", "uge", "ult",
                                     "ule",   "une", "uno", "true"};
const std::set<std::string> kCmpi = {"eq",  "ne",  "slt", "sle", "sgt",
                                     "sge", "ult", "ule", "ugt", "uge"};

// ---------------------------------------------------------------- checker -

struct Scope {
  std::map<std::string, std::vector<TType>> values;  // name -> result types
  // Results of the op that opened this scope, defined in the parent at close.
  std::vector<std::string> pending_names;
  std::vector<int> pending_counts;
  std::vector<TType> pending_types;
  bool generic = false;  // closed by "}) : (...) -> ..."
};

class Checker {
 public:
  Status run(std::string_view text) {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      ++line_no_;
      line_ = std::string(trim(text.substr(pos, end - pos)));
      pos = end + 1;
      if (line_.empty() || startsWith(line_, "//")) continue;
      Status s = checkLine();
      if (!s.isOk()) return s;
    }
    if (!scopes_.empty())
      return invalidArgument("end of text with " + std::to_string(scopes_.size()) +
                             " region(s) still open");
    if (!saw_module_) return invalidArgument("no module");
    return Status::ok();
  }

 private:
  Status fail(const std::string& what) const {
    return invalidArgument("line " + std::to_string(line_no_) + ": " + what + ": " +
                           line_);
  }

  const std::vector<TType>* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->values.find(name);
      if (f != it->values.end()) return &f->second;
    }
    return nullptr;
  }

  // The type of a use "%x" or "%x#1"; an error when undefined.
  StatusOr<TType> use(const std::string& token) const {
    const size_t hash = token.find('#');
    const std::string name = token.substr(0, hash);
    const std::vector<TType>* types = lookup(name);
    if (!types) return fail(token + " is used before it is defined (or out of scope)");
    size_t index = 0;
    if (hash != std::string::npos)
      index = std::stoul(token.substr(hash + 1));
    else if (types->size() > 1)
      return fail(token + " names " + std::to_string(types->size()) + " results; use " +
                  token + "#i");
    if (index >= types->size()) return fail(token + " has no such result");
    return (*types)[index];
  }

  Status define(const std::string& name, std::vector<TType> types) {
    if (scopes_.empty()) return fail("value outside any region");
    if (scopes_.back().values.count(name)) return fail(name + " is defined twice");
    scopes_.back().values[name] = std::move(types);
    return Status::ok();
  }

  StatusOr<TType> type(std::string_view s) const {
    std::string why;
    auto t = parseType(s, &why);
    if (!t) return fail(why);
    return *t;
  }

  Status expectType(const std::string& token, const TType& want) const {
    JFT_ASSIGN_OR_RETURN(TType got, use(token));
    if (!(got == want))
      return fail(token + " has type " + str(got) + ", the op says " + str(want));
    return Status::ok();
  }

  Status checkLine() {
    const std::string& l = line_;
    if (l == "}") return closeScope();
    // scf.while's "after" region: the "before" region's arguments end there.
    if (l == "} do {") return closeScopeKeepPending();
    if (startsWith(l, "scf.condition(")) return scfCondition();
    if (startsWith(l, "} else {")) {
      JFT_RETURN_IF_ERROR(closeScopeKeepPending());
      return Status::ok();
    }
    if (startsWith(l, "})")) return closeGeneric();
    if (l[0] == '}') {
      if (!scopes_.empty() && scopes_.back().generic)
        return fail("a generic region op must close with '})'");
      return fail("malformed closing line");
    }
    if (startsWith(l, "module")) {
      if (!endsWith(l, "{")) return fail("module without a body");
      if (!scopes_.empty()) return fail("nested module");
      saw_module_ = true;
      scopes_.emplace_back();
      return Status::ok();
    }
    if (startsWith(l, "tt.func")) return openFunc();
    if (startsWith(l, "^bb")) return blockArgs();
    return opLine();
  }

  Status closeScope() {
    if (scopes_.empty()) return fail("'}' closes nothing");
    if (scopes_.back().generic) return fail("a generic region op must close with '})'");
    Scope s = std::move(scopes_.back());
    scopes_.pop_back();
    return definePending(s, s.pending_types);
  }

  Status closeScopeKeepPending() {
    if (scopes_.size() < 2) return fail("'} else {' outside scf.if");
    Scope s = std::move(scopes_.back());
    scopes_.pop_back();
    Scope next;
    next.pending_names = s.pending_names;
    next.pending_counts = s.pending_counts;
    next.pending_types = s.pending_types;
    scopes_.push_back(std::move(next));
    return Status::ok();
  }

  Status definePending(const Scope& s, const std::vector<TType>& types) {
    size_t at = 0;
    for (size_t i = 0; i < s.pending_names.size(); ++i) {
      std::vector<TType> mine;
      for (int k = 0; k < s.pending_counts[i]; ++k) {
        if (at >= types.size())
          return fail("region op with fewer result types than results");
        mine.push_back(types[at++]);
      }
      if (scopes_.empty()) return fail("results outside any region");
      JFT_RETURN_IF_ERROR(define(s.pending_names[i], mine));
    }
    if (!s.pending_names.empty() && at != types.size())
      return fail("region op with more result types than results");
    return Status::ok();
  }

  Status closeGeneric() {
    if (scopes_.empty() || !scopes_.back().generic)
      return fail("'})' closes no generic op");
    Scope s = std::move(scopes_.back());
    scopes_.pop_back();
    const std::string after(trim(std::string_view(line_).substr(2)));
    if (!startsWith(after, ": ")) return fail("generic op without its functional type");
    const std::string fn(trim(std::string_view(after).substr(2)));
    const size_t arrow = findLastTop(fn, "->");
    if (arrow == std::string::npos || fn.front() != '(')
      return fail("expected (T...) -> R");
    std::vector<TType> results;
    std::string rs(trim(std::string_view(fn).substr(arrow + 2)));
    if (!rs.empty() && rs.front() == '(') rs = rs.substr(1, rs.size() - 2);
    for (const std::string& r : splitTop(rs, ",")) {
      JFT_ASSIGN_OR_RETURN(TType t, type(r));
      results.push_back(t);
    }
    return definePending(s, results);
  }

  Status openFunc() {
    const size_t at = line_.find('@');
    const size_t open = line_.find('(', at);
    if (at == std::string::npos || open == std::string::npos)
      return fail("malformed tt.func");
    if (!endsWith(line_, "{")) return fail("tt.func without a body");
    // The argument list: up to the matching ')'.
    int depth = 0;
    size_t close = open;
    for (; close < line_.size(); ++close) {
      if (line_[close] == '(') ++depth;
      if (line_[close] == ')' && --depth == 0) break;
    }
    if (close >= line_.size()) return fail("unbalanced tt.func arguments");
    if (scopes_.size() != 1) return fail("tt.func outside the module");
    scopes_.emplace_back();
    const std::string args = line_.substr(open + 1, close - open - 1);
    if (trim(args).empty()) return Status::ok();
    for (const std::string& arg : splitTop(args, ",")) {
      const size_t colon = arg.find(':');
      if (arg.empty() || arg[0] != '%' || colon == std::string::npos)
        return fail("malformed argument '" + arg + "'");
      std::string t = arg.substr(colon + 1);
      const size_t brace = findLastTop(t, "{");
      if (brace != std::string::npos && brace > 0) t = t.substr(0, brace);
      JFT_ASSIGN_OR_RETURN(TType ty, type(trim(t)));
      JFT_RETURN_IF_ERROR(define(std::string(trim(arg.substr(0, colon))), {ty}));
    }
    return Status::ok();
  }

  Status blockArgs() {
    const size_t open = line_.find('('), close = line_.rfind(')');
    if (open == std::string::npos || close == std::string::npos || !endsWith(line_, ":"))
      return fail("malformed block header");
    if (scopes_.empty()) return fail("block outside any region");
    const std::string args = line_.substr(open + 1, close - open - 1);
    for (const std::string& arg : splitTop(args, ",")) {
      const size_t colon = arg.find(':');
      if (colon == std::string::npos) return fail("malformed block argument");
      JFT_ASSIGN_OR_RETURN(TType ty, type(arg.substr(colon + 1)));
      JFT_RETURN_IF_ERROR(define(std::string(trim(arg.substr(0, colon))), {ty}));
    }
    return Status::ok();
  }

  // Result names and counts: "%a = ", "%a:3 = ", "%a, %b = ".
  Status splitResults(std::string& rest, std::vector<std::string>& names,
                      std::vector<int>& counts) {
    if (rest.empty() || rest[0] != '%') return Status::ok();
    const size_t eq = rest.find(" = ");
    if (eq == std::string::npos) return fail("expected '%name = op'");
    for (const std::string& r : splitTop(rest.substr(0, eq), ",")) {
      const size_t colon = r.find(':');
      std::string name = r.substr(0, colon);
      if (name.size() < 2 || name[0] != '%') return fail("malformed result '" + r + "'");
      int count = 1;
      if (colon != std::string::npos) count = std::stoi(r.substr(colon + 1));
      names.push_back(name);
      counts.push_back(count);
    }
    rest = rest.substr(eq + 3);
    return Status::ok();
  }

  Status opLine() {
    std::string rest = line_;
    std::vector<std::string> names;
    std::vector<int> counts;
    JFT_RETURN_IF_ERROR(splitResults(rest, names, counts));
    std::string op;
    bool generic = false;
    if (!rest.empty() && rest[0] == '"') {
      const size_t q = rest.find('"', 1);
      if (q == std::string::npos) return fail("unterminated op name");
      op = rest.substr(1, q - 1);
      rest = rest.substr(q + 1);
      generic = true;
    } else {
      size_t sp = 0;
      while (sp < rest.size() && !std::isspace(static_cast<unsigned char>(rest[sp])))
        ++sp;
      op = rest.substr(0, sp);
      rest = std::string(trim(rest.substr(sp)));
    }
    auto it = opTable().find(op);
    if (it == opTable().end())
      return fail("op '" + op + "' is not one Triton 3.6 accepts in TTIR");
    if (scopes_.size() < 2) return fail("op outside tt.func");
    if (op == "scf.for") return scfFor(rest, names, counts);
    if (op == "scf.while") return scfWhile(rest, names, counts);
    if (generic) return genericOpen(op, rest, names, counts);
    if (endsWith(rest, "{")) return regionOpen(rest, names, counts);

    // Operands: the text before the attribute dict / type suffix.
    const size_t colon = findLastTop(rest, " : ");
    std::string head = colon == std::string::npos ? rest : rest.substr(0, colon);
    const std::string suffix = colon == std::string::npos ? "" : rest.substr(colon + 3);
    const size_t attrs = findLastTop(head, "{");
    std::string operand_text = attrs == std::string::npos ? head : head.substr(0, attrs);
    std::vector<std::string> operands = ssaTokens(operand_text);
    const OpInfo& info = it->second;
    const int n = static_cast<int>(operands.size());
    if (info.min_operands >= 0 && (n < info.min_operands || n > info.max_operands))
      return fail(op + " takes " + std::to_string(info.min_operands) +
                  (info.max_operands != info.min_operands
                       ? " to " + std::to_string(info.max_operands)
                       : std::string()) +
                  " operands, has " + std::to_string(n));
    for (const std::string& u : operands) JFT_RETURN_IF_ERROR(use(u).status());
    std::vector<TType> results;
    JFT_RETURN_IF_ERROR(checkForm(op, info.form, head, suffix, operands, results));
    if (names.empty()) {
      if (!results.empty() && info.form != Form::kOther)
        return fail(op + " has a result but no name for it");
      return Status::ok();
    }
    if (names.size() != 1 || counts[0] != static_cast<int>(results.size()))
      return fail(op + " defines a different number of results than it has");
    return define(names[0], results);
  }

  Status checkForm(const std::string& op, Form form, const std::string& head,
                   const std::string& suffix, const std::vector<std::string>& operands,
                   std::vector<TType>& results) {
    auto needSuffix = [&]() -> Status {
      if (suffix.empty()) return fail(op + " needs a ' : type' suffix");
      return Status::ok();
    };
    switch (form) {
      case Form::kSame:
      case Form::kClampF: {
        JFT_RETURN_IF_ERROR(needSuffix());
        JFT_ASSIGN_OR_RETURN(TType t, type(suffix));
        for (const std::string& u : operands) JFT_RETURN_IF_ERROR(expectType(u, t));
        if ((op == "tt.precise_divf" || op == "tt.precise_sqrt") && t.element != "f32")
          return fail(op + " is lowered for f32 only");
        if (startsWith(op, "math.") && op != "math.absi" && !isFloatName(t.element))
          return fail(op + " of a non-float type");
        if (op == "math.absi" && !isIntName(t.element))
          return fail("math.absi of a float");
        const bool float_op = endsWith(op, "f") && op != "tt.precise_divf";
        if (startsWith(op, "arith.") && float_op != isFloatName(t.element))
          return fail(op + " of " + t.element);
        if (form == Form::kClampF && head.find("propagateNan = ") == std::string::npos)
          return fail("tt.clampf without propagateNan");
        results = {t};
        return Status::ok();
      }
      case Form::kCompare: {
        JFT_RETURN_IF_ERROR(needSuffix());
        const std::string predicate = head.substr(0, head.find(','));
        const bool f = op == "arith.cmpf";
        if (!(f ? kCmpf : kCmpi).count(predicate))
          return fail("unknown predicate " + predicate);
        JFT_ASSIGN_OR_RETURN(TType t, type(suffix));
        if (f != isFloatName(t.element)) return fail(op + " of " + t.element);
        for (const std::string& u : operands) JFT_RETURN_IF_ERROR(expectType(u, t));
        results = {t.with("i1")};
        return Status::ok();
      }
      case Form::kCast: {
        const size_t to = suffix.find(" to ");
        if (to == std::string::npos) return fail(op + " needs ' : T to U'");
        JFT_ASSIGN_OR_RETURN(TType from, type(suffix.substr(0, to)));
        JFT_ASSIGN_OR_RETURN(TType into, type(suffix.substr(to + 4)));
        JFT_RETURN_IF_ERROR(expectType(operands[0], from));
        if (from.dims != into.dims || from.tensor != into.tensor)
          return fail(op + " changes the shape");
        const int a = widthOf(from.element), b = widthOf(into.element);
        const bool fa = isFloatName(from.element), fb = isFloatName(into.element);
        bool ok = true;
        if (op == "arith.extf") ok = fa && fb && a < b && !startsWith(from.element, "f8");
        if (op == "arith.truncf")
          ok = fa && fb && a > b && !startsWith(into.element, "f8");
        if (op == "arith.extsi" || op == "arith.extui") ok = !fa && !fb && a < b;
        if (op == "arith.trunci") ok = !fa && !fb && a > b;
        if (op == "arith.sitofp" || op == "arith.uitofp") ok = !fa && fb;
        if (op == "arith.fptosi" || op == "arith.fptoui") ok = fa && !fb;
        if (!ok)
          return fail(op + " cannot convert " + from.element + " to " + into.element);
        results = {into};
        return Status::ok();
      }
      case Form::kArrow: {
        const size_t arrow = findLastTop(suffix, "->");
        if (arrow == std::string::npos) return fail(op + " needs ' : T -> U'");
        JFT_ASSIGN_OR_RETURN(TType from, type(suffix.substr(0, arrow)));
        JFT_ASSIGN_OR_RETURN(TType into, type(suffix.substr(arrow + 2)));
        JFT_RETURN_IF_ERROR(expectType(operands[0], from));
        if (op == "tt.splat" &&
            (from.tensor || !into.tensor || from.element != into.element))
          return fail("tt.splat takes a scalar to a tensor of its type");
        if (op == "tt.bitcast" &&
            (from.dims != into.dims || widthOf(from.element) != widthOf(into.element)))
          return fail("tt.bitcast between types of different widths or shapes");
        if (op == "tt.fp_to_fp") {
          if (!isFloatName(from.element) || !isFloatName(into.element))
            return fail("tt.fp_to_fp of non-floats");
          const bool narrows = widthOf(into.element) < widthOf(from.element);
          if (narrows != (head.find("rounding = ") != std::string::npos))
            return fail("tt.fp_to_fp needs a rounding mode exactly when it narrows");
          if ((from.element == "f64" && startsWith(into.element, "f8")) ||
              (into.element == "f64" && startsWith(from.element, "f8")))
            return fail("tt.fp_to_fp between f64 and f8 is not lowered");
        }
        if ((op == "tt.broadcast" || op == "tt.expand_dims" || op == "tt.reshape") &&
            from.element != into.element)
          return fail(op + " changes the element type");
        results = {into};
        return Status::ok();
      }
      case Form::kSelect: {
        JFT_RETURN_IF_ERROR(needSuffix());
        auto types = splitTop(suffix, ",");
        if (types.size() > 2) return fail("arith.select takes ': C, T' or ': T'");
        JFT_ASSIGN_OR_RETURN(TType t, type(types.back()));
        TType c = TType{{}, "i1", false};
        if (types.size() == 2) {
          JFT_ASSIGN_OR_RETURN(c, type(types[0]));
          if (c.element != "i1" || c.dims != t.dims) return fail("select condition type");
        }
        JFT_RETURN_IF_ERROR(expectType(operands[0], c));
        JFT_RETURN_IF_ERROR(expectType(operands[1], t));
        JFT_RETURN_IF_ERROR(expectType(operands[2], t));
        results = {t};
        return Status::ok();
      }
      case Form::kAddPtr: {
        auto types = splitTop(suffix, ",");
        if (types.size() != 2) return fail("tt.addptr takes ': P, O'");
        JFT_ASSIGN_OR_RETURN(TType p, type(types[0]));
        JFT_ASSIGN_OR_RETURN(TType o, type(types[1]));
        if (!p.isPtr() || !isIntName(o.element) || p.dims != o.dims)
          return fail("tt.addptr of a non-pointer or mismatched offsets");
        JFT_RETURN_IF_ERROR(expectType(operands[0], p));
        JFT_RETURN_IF_ERROR(expectType(operands[1], o));
        results = {p};
        return Status::ok();
      }
      case Form::kLoad:
      case Form::kStore: {
        JFT_RETURN_IF_ERROR(needSuffix());
        JFT_ASSIGN_OR_RETURN(TType p, type(suffix));
        if (!p.isPtr()) return fail(op + " through a non-pointer type");
        JFT_RETURN_IF_ERROR(expectType(operands[0], p));
        const TType value = p.with(p.pointee());
        if (value.element == "i1") return fail(op + " of i1 (pred is stored as i8)");
        size_t next = 1;
        if (form == Form::kStore)
          JFT_RETURN_IF_ERROR(expectType(operands[next++], value));
        if (next < operands.size())
          JFT_RETURN_IF_ERROR(expectType(operands[next++], p.with("i1")));
        if (next < operands.size())
          JFT_RETURN_IF_ERROR(expectType(operands[next++], value));
        if (form == Form::kLoad) results = {value};
        return Status::ok();
      }
      case Form::kConstant: {
        if (head == "true" || head == "false") {
          if (!suffix.empty()) return fail("a bool constant carries no type");
          results = {TType{{}, "i1", false}};
          return Status::ok();
        }
        JFT_RETURN_IF_ERROR(needSuffix());
        JFT_ASSIGN_OR_RETURN(TType t, type(suffix));
        if (t.tensor != startsWith(head, "dense<"))
          return fail("tensor constants are dense<...>, scalars plain");
        results = {t};
        return Status::ok();
      }
      case Form::kFunctional: {
        const size_t arrow = findLastTop(suffix, "->");
        if (suffix.empty() || suffix[0] != '(' || arrow == std::string::npos)
          return fail(op + " needs ' : (T...) -> R'");
        const size_t close = findLastTop(suffix.substr(0, arrow), ")");
        auto ins = splitTop(suffix.substr(1, close - 1), ",");
        if (ins.size() != operands.size())
          return fail(op + ": " + std::to_string(operands.size()) + " operands, " +
                      std::to_string(ins.size()) + " operand types");
        for (size_t i = 0; i < ins.size(); ++i) {
          JFT_ASSIGN_OR_RETURN(TType t, type(ins[i]));
          JFT_RETURN_IF_ERROR(expectType(operands[i], t));
        }
        JFT_ASSIGN_OR_RETURN(TType r, type(suffix.substr(arrow + 2)));
        if (op == "tt.extern_elementwise") {
          for (const char* key : {"libname = ", "libpath = ", "symbol = ", "pure = "})
            if (head.find(key) == std::string::npos)
              return fail("tt.extern_elementwise without " + std::string(key) + "...");
        }
        results = {r};
        return Status::ok();
      }
      case Form::kDot: {
        const size_t star = suffix.find(" * "), arrow = findLastTop(suffix, "->");
        if (star == std::string::npos || arrow == std::string::npos)
          return fail("tt.dot needs ' : A * B -> C'");
        JFT_ASSIGN_OR_RETURN(TType a, type(suffix.substr(0, star)));
        JFT_ASSIGN_OR_RETURN(TType b, type(suffix.substr(star + 3, arrow - star - 3)));
        JFT_ASSIGN_OR_RETURN(TType c, type(suffix.substr(arrow + 2)));
        JFT_RETURN_IF_ERROR(expectType(operands[0], a));
        JFT_RETURN_IF_ERROR(expectType(operands[1], b));
        JFT_RETURN_IF_ERROR(expectType(operands[2], c));
        results = {c};
        return Status::ok();
      }
      case Form::kProgramId: {
        if ((head != "x" && head != "y" && head != "z") || suffix != "i32")
          return fail(op + " takes 'x|y|z : i32'");
        results = {TType{{}, "i32", false}};
        return Status::ok();
      }
      case Form::kMakeRange: {
        JFT_ASSIGN_OR_RETURN(TType t, type(suffix));
        auto field = [&](const std::string& key) -> std::optional<int64_t> {
          const size_t at = head.find(key + " = ");
          if (at == std::string::npos) return std::nullopt;
          return std::stoll(head.substr(at + key.size() + 3));
        };
        auto start = field("start"), end = field("end");
        if (!start || !end || t.dims.size() != 1 || t.element != "i32" ||
            *end - *start != t.dims[0])
          return fail("tt.make_range needs start/end spanning its i32 tensor");
        results = {t};
        return Status::ok();
      }
      case Form::kTerminator: {
        if (operands.empty()) return Status::ok();
        auto types = splitTop(suffix, ",");
        if (types.size() != operands.size()) return fail(op + ": one type per operand");
        for (size_t i = 0; i < types.size(); ++i) {
          JFT_ASSIGN_OR_RETURN(TType t, type(types[i]));
          JFT_RETURN_IF_ERROR(expectType(operands[i], t));
        }
        return Status::ok();
      }
      case Form::kOther:
        // tt.join / tt.split: ' : T -> U'; a split defines two results of U.
        if (op == "tt.join" || op == "tt.split") {
          const size_t arrow = findLastTop(suffix, "->");
          if (arrow == std::string::npos) return fail(op + " needs ' : T -> U'");
          JFT_ASSIGN_OR_RETURN(TType in, type(suffix.substr(0, arrow)));
          JFT_ASSIGN_OR_RETURN(TType out, type(suffix.substr(arrow + 2)));
          for (const std::string& operand : operands)
            JFT_RETURN_IF_ERROR(expectType(operand, in));
          results = {out};
          if (op == "tt.split") results.push_back(out);
        }
        return Status::ok();
    }
    return Status::ok();
  }

  // %r:N = scf.for %iv = %lb to %ub step %s iter_args(%a = %x, ...) -> (T...) : i32 {
  Status scfFor(const std::string& rest, const std::vector<std::string>& names,
                const std::vector<int>& counts) {
    if (!endsWith(rest, "{")) return fail("scf.for without a body");
    const size_t eq = rest.find(" = "), to = rest.find(" to "),
                 step = rest.find(" step ");
    if (rest.empty() || rest[0] != '%' || eq == std::string::npos ||
        to == std::string::npos || step == std::string::npos)
      return fail("scf.for needs '%iv = %lb to %ub step %s'");
    const std::string iv = rest.substr(0, eq);
    const size_t colon = findLastTop(rest, " : ");
    if (colon == std::string::npos) return fail("scf.for without its induction type");
    std::string iv_type(trim(std::string_view(rest).substr(colon + 3)));
    iv_type = std::string(trim(iv_type.substr(0, iv_type.size() - 1)));  // drop "{"
    JFT_ASSIGN_OR_RETURN(TType ivt, type(iv_type));
    for (const std::string& bound :
         ssaTokens(std::string_view(rest).substr(eq, rest.find("iter_args") - eq)))
      JFT_RETURN_IF_ERROR(expectType(bound, ivt));
    std::vector<std::pair<std::string, TType>> carried;
    std::vector<TType> result_types;
    const size_t iter = rest.find("iter_args(");
    if (iter != std::string::npos) {
      const size_t close = rest.find(')', iter);
      const size_t arrow = rest.find("-> (", close);
      if (close == std::string::npos || arrow == std::string::npos)
        return fail("scf.for iter_args without result types");
      const size_t types_end = rest.find(')', arrow);
      for (const std::string& t :
           splitTop(rest.substr(arrow + 4, types_end - arrow - 4), ",")) {
        JFT_ASSIGN_OR_RETURN(TType ty, type(t));
        result_types.push_back(ty);
      }
      auto args = splitTop(rest.substr(iter + 10, close - iter - 10), ",");
      if (args.size() != result_types.size())
        return fail("scf.for iter_args vs result types");
      for (size_t i = 0; i < args.size(); ++i) {
        const size_t e = args[i].find(" = ");
        if (e == std::string::npos) return fail("malformed iter_arg");
        JFT_RETURN_IF_ERROR(
            expectType(std::string(trim(args[i].substr(e + 3))), result_types[i]));
        carried.emplace_back(args[i].substr(0, e), result_types[i]);
      }
    }
    int declared = 0;
    for (int c : counts) declared += c;
    if (declared != static_cast<int>(result_types.size()))
      return fail("scf.for defines " + std::to_string(declared) + " results, carries " +
                  std::to_string(result_types.size()));
    Scope body;
    body.pending_names = names;
    body.pending_counts = counts;
    body.pending_types = result_types;
    scopes_.push_back(std::move(body));
    JFT_RETURN_IF_ERROR(define(iv, {ivt}));
    for (auto& [name, t] : carried) JFT_RETURN_IF_ERROR(define(name, {t}));
    return Status::ok();
  }

  // "tt.reduce"(%x) <{axis = 0 : i32}> ({
  Status genericOpen(const std::string& op, const std::string& rest,
                     const std::vector<std::string>& names,
                     const std::vector<int>& counts) {
    if (!endsWith(rest, "({")) return fail("generic op " + op + " without a region");
    const size_t close = rest.find(')');
    for (const std::string& u : ssaTokens(rest.substr(0, close)))
      JFT_RETURN_IF_ERROR(use(u).status());
    if (op == "tt.reduce" && rest.find("axis = ") == std::string::npos)
      return fail("tt.reduce without an axis");
    Scope s;
    s.generic = true;
    s.pending_names = names;
    s.pending_counts = counts;
    scopes_.push_back(std::move(s));
    return Status::ok();
  }

  // %r:N = scf.while (%a = %x, ...) : (T...) -> (T...) {
  // The "before" region sees %a...; "} do {" opens the "after" region,
  // whose ^bb0 line names its own arguments.
  Status scfWhile(const std::string& rest, const std::vector<std::string>& names,
                  const std::vector<int>& counts) {
    if (!endsWith(rest, "{")) return fail("scf.while without a body");
    if (rest.empty() || rest[0] != '(') return fail("scf.while needs '(%a = %x, ...)'");
    int depth = 0;
    size_t close = 0;
    for (; close < rest.size(); ++close) {
      if (rest[close] == '(') ++depth;
      if (rest[close] == ')' && --depth == 0) break;
    }
    if (close >= rest.size()) return fail("unbalanced scf.while operands");
    std::string sig(trim(std::string_view(rest).substr(close + 1)));
    if (!startsWith(sig, ": ")) return fail("scf.while without its types");
    sig = std::string(trim(sig.substr(2, sig.size() - 3)));
    const size_t arrow = findLastTop(sig, "->");
    if (arrow == std::string::npos) return fail("scf.while without result types");
    auto types = [&](std::string t) -> StatusOr<std::vector<TType>> {
      t = std::string(trim(t));
      if (!t.empty() && t.front() == '(') t = t.substr(1, t.size() - 2);
      std::vector<TType> out;
      for (const std::string& one : splitTop(t, ",")) {
        JFT_ASSIGN_OR_RETURN(TType ty, type(one));
        out.push_back(ty);
      }
      return out;
    };
    JFT_ASSIGN_OR_RETURN(std::vector<TType> in, types(sig.substr(0, arrow)));
    JFT_ASSIGN_OR_RETURN(std::vector<TType> out, types(sig.substr(arrow + 2)));
    const std::vector<std::string> inits = splitTop(rest.substr(1, close - 1), ",");
    if (inits.size() != in.size()) return fail("scf.while operands vs operand types");
    std::vector<std::pair<std::string, TType>> args;
    for (size_t i = 0; i < inits.size(); ++i) {
      const size_t eq = inits[i].find('=');
      if (eq == std::string::npos) return fail("scf.while needs '%a = %x'");
      const std::string value(trim(std::string_view(inits[i]).substr(eq + 1)));
      JFT_RETURN_IF_ERROR(expectType(value, in[i]));
      args.emplace_back(std::string(trim(std::string_view(inits[i]).substr(0, eq))),
                        in[i]);
    }
    Scope s;
    s.pending_names = names;
    s.pending_counts = counts;
    s.pending_types = out;
    scopes_.push_back(std::move(s));
    for (const auto& [name, ty] : args) JFT_RETURN_IF_ERROR(define(name, {ty}));
    return Status::ok();
  }

  // scf.condition(%c) %a, ... : T, ...: every operand defined.
  Status scfCondition() {
    const size_t colon = findLastTop(line_, " : ");
    for (const std::string& u : ssaTokens(line_.substr(0, colon)))
      JFT_RETURN_IF_ERROR(use(u).status());
    return Status::ok();
  }

  // scf.if %c -> (T...) {   /   scf.while ...: operands checked, results typed.
  Status regionOpen(const std::string& rest, const std::vector<std::string>& names,
                    const std::vector<int>& counts) {
    const size_t arrow = findLastTop(rest, "->");
    for (const std::string& u : ssaTokens(rest.substr(0, arrow)))
      JFT_RETURN_IF_ERROR(use(u).status());
    std::vector<TType> types;
    if (arrow != std::string::npos) {
      std::string t(trim(std::string_view(rest).substr(arrow + 2)));
      t = std::string(trim(t.substr(0, t.size() - 1)));
      if (!t.empty() && t.front() == '(') t = t.substr(1, t.size() - 2);
      for (const std::string& one : splitTop(t, ",")) {
        JFT_ASSIGN_OR_RETURN(TType ty, type(one));
        types.push_back(ty);
      }
    }
    Scope s;
    s.pending_names = names;
    s.pending_counts = counts;
    s.pending_types = types;
    scopes_.push_back(std::move(s));
    return Status::ok();
  }

  std::vector<Scope> scopes_;
  std::string line_;
  int line_no_ = 0;
  bool saw_module_ = false;
};

}  // namespace

Status checkTtirSyntax(std::string_view module_text) {
  return Checker().run(module_text);
}

}  // namespace jft::codegen::ttir::testing
