#include "fusion/grouping.h"

#include <algorithm>

#include "fusion/attention_form.h"
#include "fusion/library_epilogue.h"
#include "fusion/op_route.h"
#include "fusion/op_text.h"
#include "fusion/pallas_call.h"
#include "fusion/product_route.h"
#include "fusion/ttir_support.h"
#include "support/enum_table.h"

namespace jft::fusion {
namespace {

using ir::OpKind;

// Ops cheap enough to recompute in every consumer group rather than write out
// once and read back: they only re-index or convert what they read.
bool isCheap(const ir::Op& op) {
  return isOneOf(op.kind, {OpKind::BroadcastInDim, OpKind::Reshape, OpKind::Iota,
                           OpKind::Convert, OpKind::BitcastConvert});
}

// Pooling and its gradient (not the cumulative reduce_window of the scan
// family, which never joins a group).
bool isWindowOp(const ir::Op& op) {
  return op.kind == OpKind::ReduceWindow || op.kind == OpKind::SelectAndScatter;
}

class Grouper {
 public:
  Grouper(const ir::Module& module, const ir::Region& region, const UseGraph& uses,
          const PlanOptions& options)
      : module_(module), region_(region), uses_(uses), options_(options) {
    out_.home.assign(uses.numOps(), -1);
    out_.copied_into.resize(uses.numOps());
  }

  Grouping run() && {
    readers_.clear();
    placeAttention();
    for (size_t i = uses_.numOps(); i-- > 0;) {
      // An op already placed: a bias broadcast a library dot took along.
      if (out_.home[i] < 0) place(i);
      linkReaders(i);
    }
    std::reverse(out_.unsupported.begin(), out_.unsupported.end());
    return std::move(out_);
  }

 private:
  const ir::Op& op(size_t i) const { return region_.ops[i]; }
  DraftGroup& group(int g) { return out_.groups[g]; }

  bool inGroup(size_t i, int g) const {
    const auto& copies = out_.copied_into[i];
    return out_.home[i] == g ||
           std::find(copies.begin(), copies.end(), g) != copies.end();
  }

  // Groups reading a result of op `i` from where it is made, ascending: a
  // group holding a copy of `i` computes it itself and is not listed.
  std::vector<int> userGroups(size_t i) const {
    std::vector<int> groups;
    for (size_t user : uses_.opUsers(i)) {
      if (out_.home[user] >= 0) groups.push_back(out_.home[user]);
      for (int g : out_.copied_into[user]) groups.push_back(g);
    }
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    std::erase_if(groups, [&](int g) { return inGroup(i, g); });
    return groups;
  }

  // Attention groups are formed before the search (attention_form.h): each
  // is the whole pattern, so no op the walk meets could change it, and the
  // walk skips what they hold. Not under XLA_FLAGTREE_MATMUL=library (every
  // dot on the library) nor without fusion or a TTIR backend.
  void placeAttention() {
    if (!options_.attention || !options_.fuse ||
        options_.matmul == MatmulRoute::kLibrary || !options_.ttir.supports)
      return;
    for (size_t i = uses_.numOps(); i-- > 0;) {
      if (op(i).kind != OpKind::DotGeneral || out_.home[i] >= 0) continue;
      std::optional<AttentionForm> form = attentionFormOf(module_, region_, uses_, i);
      if (!form || !attentionFree(*form)) continue;
      const int g = static_cast<int>(out_.groups.size());
      DraftGroup group;
      group.route = Route::kTtir;
      group.family = Family::kAttention;
      group.root = i;
      group.dot = static_cast<long>(i);
      group.ops.push_back(i);
      for (size_t at : form->own) {
        out_.home[at] = g;
        if (at != i) group.ops.push_back(at);
      }
      for (size_t at : form->copied) {
        out_.copied_into[at].push_back(g);
        group.copies.push_back(at);
      }
      out_.groups.push_back(std::move(group));
    }
  }

  // Whether no other group holds the pattern's own ops and the TTIR backend
  // computes every op but the dots (the kernel's own) and holds the dots'
  // element types.
  bool attentionFree(const AttentionForm& form) const {
    for (size_t at : form.own)
      if (out_.home[at] >= 0 || !out_.copied_into[at].empty()) return false;
    for (const std::vector<size_t>* list : {&form.own, &form.copied})
      for (size_t at : *list)
        if (op(at).kind != OpKind::DotGeneral &&
            !options_.ttir.supports(module_, op(at)).ok)
          return false;
    // The dots' operand and result types, which no table entry covers.
    for (size_t at : {form.qk_dot, form.pv_dot})
      for (const std::vector<ir::ValueId>* values : {&op(at).operands, &op(at).results})
        for (ir::ValueId v : *values)
          if (!options_.ttir.holds || !options_.ttir.holds(module_.typeOf(v).element))
            return false;
    return true;
  }

  void place(size_t i) {
    // Copied into attention groups only, read by nothing else: no home.
    if (!out_.copied_into[i].empty() && !uses_.anyResultReturned(i) &&
        userGroups(i).empty())
      return;
    if (isProduct(op(i)) && placeProduct(i)) return;
    const OpRoute route = routeOf(module_, op(i), options_);
    if (!route.supported) {
      out_.unsupported.push_back(
          {i, opSignature(module_, op(i)), opUserFrame(module_, op(i)), route.reason});
      newGroup(i, Route::kNative);
      return;
    }
    // A Pallas kernel and other non-TTIR routes run alone.
    if (route.route != Route::kTtir || isPallasCall(op(i))) {
      if (route.route == Route::kLibrary && takeLibraryEpilogue(i)) return;
      newGroup(i, route.route);
      return;
    }
    const bool returned = uses_.anyResultReturned(i);
    const std::vector<int> users = userGroups(i);
    std::vector<int> ttir;
    bool escapes = returned;  // some reader cannot recompute it
    for (int g : users) {
      // A Pallas kernel reads its operands from buffers: nothing joins it.
      if (group(g).route == Route::kTtir && group(g).family != Family::kPallas)
        ttir.push_back(g);
      else
        escapes = true;
    }
    if (isSplatConstant(op(i))) {
      for (int g : ttir) addCopy(i, g);
      if (escapes || ttir.empty()) newGroup(i, Route::kNone);
      return;
    }
    if (options_.fuse && users.size() == 1 && ttir.size() == 1 &&
        canJoin(i, ttir[0], returned)) {
      join(i, ttir[0]);
      return;
    }
    if (options_.fuse && isCheap(op(i))) {
      std::vector<int> taken;
      for (int g : ttir)
        if (canCopy(i, g)) taken.push_back(g);
      if (!taken.empty()) {
        for (int g : taken) addCopy(i, g);
        if (escapes || taken.size() < ttir.size()) newGroup(i, Route::kTtir);
        return;
      }
    }
    if (options_.fuse && options_.recompute_elementwise && !escapes && ttir.size() > 1 &&
        recomputable(i)) {
      bool everyReader = true;
      for (int g : ttir)
        everyReader = everyReader && !isProductFamily(group(g).family) && canCopy(i, g);
      if (everyReader) {
        for (int g : ttir) addCopy(i, g);
        return;
      }
    }
    if (options_.fuse && !libraryEpilogueAlone(i)) {
      const int g = outputHost(i, ttir);
      if (g >= 0) {
        join(i, g);
        return;
      }
    }
    newGroup(i, Route::kTtir);
  }

  // Whether op `i` alone (with the broadcasts it reads) is an epilogue the
  // library fuses into the dot it reads (library_epilogue.h). It then stays
  // a group of its own, which the dot takes, rather than becoming an extra
  // output of a reader's kernel: the fused product writes the value once,
  // where the extra output would write the product and then the value.
  bool libraryEpilogueAlone(size_t i) const {
    for (ir::ValueId v : op(i).operands) {
      const long d = uses_.definingOp(v);
      if (d < 0 || op(static_cast<size_t>(d)).kind != OpKind::DotGeneral) continue;
      const std::optional<ProductChoice> choice =
          productChoice(module_, op(static_cast<size_t>(d)), options_, true);
      if (!options_.library_route || (choice && choice->route == Route::kTtir))
        return false;
      std::vector<size_t> ops = {static_cast<size_t>(d), i};
      for (ir::ValueId w : op(i).operands) {
        const long b = uses_.definingOp(w);
        if (b >= 0 && op(static_cast<size_t>(b)).kind == OpKind::BroadcastInDim)
          ops.push_back(static_cast<size_t>(b));
      }
      return libraryEpilogueOf(module_, region_, ops).has_value();
    }
    return false;
  }

  // Multi-output fusion: op `i` has readers in several groups (or in one
  // group and the return, or a route that cannot recompute it); it may still
  // join one TTIR reader group `g`, whose kernel then also stores its results
  // for the other readers. Which one: the reader group that runs first in
  // program order (smallest root) among those that can store the value and
  // where no cycle results. The value is then made exactly when it is first
  // needed, as a separate kernel would have made it, and the new edges (from
  // `g` to the later readers) follow program order, so they rarely close a
  // cycle or hold back a group that could have run earlier; the order is
  // deterministic. -1 when no reader group can host it.
  int outputHost(size_t i, std::vector<int> ttir) {
    std::sort(ttir.begin(), ttir.end(),
              [&](int a, int b) { return group(a).root < group(b).root; });
    for (int g : ttir)
      if (canJoin(i, g, /*stored=*/true) && !closesCycle(i, g)) return g;
    return -1;
  }

  // Whether putting op `i` into group `g` as an output would close a cycle:
  // every other group reading `i` would then read it from `g` (an edge g ->
  // reader), so a path from such a reader back to `g` already in the graph
  // means neither could run first. The ops that `i` reads are not placed yet
  // (ops are placed last to first), so joining adds no edge into `g`.
  bool closesCycle(size_t i, int g) const {
    std::vector<int> stack;
    for (int reader : userGroups(i))
      if (reader != g) stack.push_back(reader);
    std::vector<char> seen(out_.groups.size(), 0);
    while (!stack.empty()) {
      const int at = stack.back();
      stack.pop_back();
      if (at == g) return true;
      if (seen[static_cast<size_t>(at)]) continue;
      seen[static_cast<size_t>(at)] = 1;
      for (int next : readers_[static_cast<size_t>(at)]) stack.push_back(next);
    }
    return false;
  }

  // Records, once op `i` is placed, the groups that read its results from
  // its home group (those not holding a copy of it): the edges of the group
  // graph that closesCycle walks.
  void linkReaders(size_t i) {
    readers_.resize(out_.groups.size());
    const int from = out_.home[i];
    if (from < 0) return;  // only copies: every reader computes it itself
    for (int reader : userGroups(i)) {
      if (inGroup(i, reader)) continue;
      std::vector<int>& list = readers_[static_cast<size_t>(from)];
      if (std::find(list.begin(), list.end(), reader) == list.end())
        list.push_back(reader);
    }
  }

  // Whether op `i` (elementwise) is worth recomputing in each reader rather
  // than storing: walking back through the elementwise ops it is computed
  // from (same shape, none reading a product: that one is the product's
  // epilogue and stays there), at most kMaxRecomputed ops, reading at most
  // one value of its own size from memory (smaller broadcast or constant
  // operands cost little). Reading that one value costs no more than reading
  // `i` itself, and a reader usually reads it anyway.
  bool recomputable(size_t i) const {
    constexpr size_t kMaxRecomputed = 16;
    if (!isTtirElementwise(op(i).kind) || op(i).results.size() != 1) return false;
    const ir::Type& type = module_.typeOf(op(i).results[0]);
    if (!type.isTensor()) return false;
    auto readsProduct = [&](size_t m) {
      for (ir::ValueId v : op(m).operands) {
        const long d = uses_.definingOp(v);
        if (d >= 0 && isProduct(op(static_cast<size_t>(d)))) return true;
      }
      return false;
    };
    if (readsProduct(i)) return false;
    std::vector<size_t> stack = {i};
    std::vector<size_t> visited;
    std::vector<ir::ValueId> stored;
    while (!stack.empty()) {
      const size_t m = stack.back();
      stack.pop_back();
      if (std::find(visited.begin(), visited.end(), m) != visited.end()) continue;
      visited.push_back(m);
      if (visited.size() > kMaxRecomputed) return false;
      for (ir::ValueId v : op(m).operands) {
        const ir::Type& operand = module_.typeOf(v);
        if (operand.isTensor() && operand.numElements() < type.numElements()) continue;
        const long d = uses_.definingOp(v);
        if (d >= 0 && isSplatConstant(op(static_cast<size_t>(d)))) continue;
        const bool inside = d >= 0 && operand.dims == type.dims &&
                            (isTtirElementwise(op(static_cast<size_t>(d)).kind) ||
                             isCheap(op(static_cast<size_t>(d)))) &&
                            !readsProduct(static_cast<size_t>(d));
        if (inside) {
          stack.push_back(static_cast<size_t>(d));
        } else if (std::find(stored.begin(), stored.end(), v) == stored.end()) {
          stored.push_back(v);
          if (stored.size() > 1) return false;
        }
      }
    }
    return true;
  }

  static bool isProduct(const ir::Op& o) {
    return o.kind == OpKind::DotGeneral || o.kind == OpKind::Convolution;
  }

  // A dot_general or convolution a product family takes (product_route.h):
  // it joins the loop group of its elementwise epilogue when that group is
  // its only reader, else it is a group of its own. False: the op goes the
  // way routeOf says (library).
  bool placeProduct(size_t i) {
    if (readsSplat(op(i))) return false;
    const std::vector<int> users = userGroups(i);
    int target = -1;
    if (options_.fuse && users.size() == 1 && group(users[0]).route == Route::kTtir &&
        canTakeDot(i, users[0]))
      target = users[0];
    const std::optional<ProductChoice> choice =
        productChoice(module_, op(i), options_, target >= 0);
    if (!choice || choice->route != Route::kTtir) return false;
    if (target < 0) {
      newGroup(i, Route::kTtir);
      group(out_.home[i]).dot = static_cast<long>(i);
      return true;
    }
    DraftGroup& g = group(target);
    g.family = choice->family;
    g.dot = static_cast<long>(i);
    out_.home[i] = target;
    g.ops.push_back(i);
    return true;
  }

  // A library dot whose only reader is a loop group holding exactly an
  // epilogue the library fuses (library_epilogue.h): the group becomes the
  // dot's library group, writing the epilogue's result.
  bool takeLibraryEpilogue(size_t i) {
    if (!options_.fuse || op(i).kind != OpKind::DotGeneral) return false;
    const std::vector<int> users = userGroups(i);
    if (users.size() != 1) return false;
    const int g = users[0];
    DraftGroup& target = group(g);
    if (target.route != Route::kTtir || target.family != Family::kLoop) return false;
    std::vector<size_t> members = target.ops;
    members.insert(members.end(), target.copies.begin(), target.copies.end());
    members.push_back(i);
    // Broadcasts and splat constants before the dot in program order, not
    // placed yet, read only inside the epilogue: taken along when the
    // epilogue needs them (the bias broadcast must be in the group; a zero
    // left out would be materialised by a kernel of its own).
    const std::vector<size_t> early = earlyOperands(i, g);
    std::vector<size_t> with_early = members;
    with_early.insert(with_early.end(), early.begin(), early.end());
    std::optional<LibraryEpilogue> epilogue =
        libraryEpilogueOf(module_, region_, with_early);
    const bool take_early = epilogue.has_value() && !early.empty();
    if (!epilogue) epilogue = libraryEpilogueOf(module_, region_, members);
    if (!epilogue) return false;
    // The group writes only the epilogue's result: a home op of it read by
    // another group (a bias broadcast shared with others) keeps it apart.
    for (size_t m : target.ops)
      if (m != target.root && readOutside(m, g)) return false;
    if (take_early)
      for (size_t e : early) {
        out_.home[e] = g;
        target.ops.push_back(e);
      }
    target.route = Route::kLibrary;
    target.family = Family::kNone;
    target.ops.push_back(i);
    out_.home[i] = g;
    return true;
  }

  // The unplaced broadcasts and splat constants before dot `i` that only
  // ops of group `g` (or other such ops) read, transitively.
  std::vector<size_t> earlyOperands(size_t i, int g) const {
    std::vector<size_t> found;
    const DraftGroup& target = out_.groups[g];
    std::vector<size_t> work = target.ops;
    work.insert(work.end(), target.copies.begin(), target.copies.end());
    auto taken = [&](size_t o) {
      return inGroup(o, g) || std::find(found.begin(), found.end(), o) != found.end();
    };
    while (!work.empty()) {
      const size_t at = work.back();
      work.pop_back();
      for (ir::ValueId v : op(at).operands) {
        const long def = uses_.definingOp(v);
        if (def < 0 || static_cast<size_t>(def) >= i) continue;
        const size_t d = static_cast<size_t>(def);
        if (out_.home[d] >= 0 || !out_.copied_into[d].empty() || taken(d) ||
            uses_.anyResultReturned(d))
          continue;
        if (op(d).kind != OpKind::BroadcastInDim && !isSplatConstant(op(d))) continue;
        bool inside = true;
        for (size_t reader : uses_.opUsers(d)) inside = inside && taken(reader);
        if (!inside) continue;
        found.push_back(d);
        work.push_back(d);
      }
    }
    return found;
  }

  // Whether a result of op `i` is read outside group `g` or returned.
  bool readOutside(size_t i, int g) const {
    if (uses_.anyResultReturned(i)) return true;
    for (size_t user : uses_.opUsers(i))
      if (!inGroup(user, g)) return true;
    return false;
  }

  // Whether loop group `g`, which reads product `i`, can be its epilogue: the
  // group's ops are elementwise ops, cheap re-indexing ops and splat
  // constants; every op reading the dot's result (directly or through other
  // such ops) is elementwise on the dot's shape; and the group writes the
  // dot's shape (a loop group's outputs all have its root's shape).
  bool canTakeDot(size_t i, int g) const {
    const DraftGroup& target = out_.groups[g];
    if (target.family != Family::kLoop) return false;
    const std::vector<int64_t>& dims = module_.typeOf(op(i).results[0]).dims;
    if (dims.empty()) return false;  // a scalar result has no tile to map
    const ir::Op& root = op(target.root);
    if (root.results.size() != 1 || module_.typeOf(root.results[0]).dims != dims)
      return false;
    std::vector<size_t> members = target.ops;
    members.insert(members.end(), target.copies.begin(), target.copies.end());
    std::sort(members.begin(), members.end());
    std::vector<ir::ValueId> derived = op(i).results;
    auto isDerived = [&](ir::ValueId v) {
      return std::find(derived.begin(), derived.end(), v) != derived.end();
    };
    for (size_t m : members) {
      if (!isEpilogueOp(op(m))) return false;
      bool reads = false;
      for (ir::ValueId v : op(m).operands) reads = reads || isDerived(v);
      if (!reads) continue;
      if (!isTtirElementwise(op(m).kind) || op(m).results.size() != 1 ||
          module_.typeOf(op(m).results[0]).dims != dims)
        return false;
      derived.push_back(op(m).results[0]);
    }
    return true;
  }

  // Whether an operand of `o` is a splat constant (which every TTIR group
  // recomputes): the product kernels load their operand tiles from memory.
  bool readsSplat(const ir::Op& o) const {
    for (ir::ValueId v : o.operands) {
      const long def = uses_.definingOp(v);
      if (def >= 0 && isSplatConstant(op(static_cast<size_t>(def)))) return true;
    }
    return false;
  }

  // The product emitters' epilogue holds real tiles only.
  bool hasComplexResult(const ir::Op& o) const {
    for (ir::ValueId v : o.results)
      if (module_.typeOf(v).isTensor() && ir::isComplex(module_.typeOf(v).element))
        return true;
    return false;
  }

  bool isEpilogueOp(const ir::Op& o) const {
    if (hasComplexResult(o)) return false;
    return isTtirElementwise(o.kind) || isCheap(o) || isSplatConstant(o);
  }

  // Op `i` (before the product in program order) in product group `g`: either a
  // float convert whose only reader in the group is the dot (applied to the
  // loaded operand tile), or an epilogue op none of whose readers in the
  // group is the dot or an operand convert.
  bool fitsProduct(size_t i, int g) {
    DraftGroup& target = group(g);
    bool feeds_dot = false, feeds_other = false, feeds_convert = false;
    for (ir::ValueId value : op(i).results)
      for (size_t user : uses_.users(value)) {
        if (!inGroup(user, g)) continue;
        if (static_cast<long>(user) == target.dot)
          feeds_dot = true;
        else if (std::find(target.operand_converts.begin(), target.operand_converts.end(),
                           user) != target.operand_converts.end())
          feeds_convert = true;
        else
          feeds_other = true;
      }
    if (feeds_convert) return false;
    if (!feeds_dot) return isEpilogueOp(op(i));
    if (feeds_other || op(i).kind != OpKind::Convert || op(i).operands.size() != 1)
      return false;
    const ir::Type& from = module_.typeOf(op(i).operands[0]);
    return !readsSplat(op(i)) && from.isTensor() && ir::isFloat(from.element) &&
           options_.ttir.holds && options_.ttir.holds(from.element) &&
           !ir::isComplex(from.element);
  }

  void newGroup(size_t i, Route route) {
    DraftGroup g;
    g.route = route;
    g.root = i;
    g.ops.push_back(i);
    if (route == Route::kTtir) {
      g.family = ttirFamilyOf(module_, op(i));
      if (g.family == Family::kReduction) g.space = reductionSpaceOf(module_, op(i));
    }
    out_.home[i] = static_cast<int>(out_.groups.size());
    out_.groups.push_back(std::move(g));
  }

  void join(size_t i, int g) {
    if (isProductFamily(group(g).family)) notePlacedInProduct(i, g);
    if (op(i).kind == OpKind::Reduce && group(g).family == Family::kLoop) {
      group(g).family = Family::kReduction;
      group(g).space = reductionSpaceOf(module_, op(i));
    }
    out_.home[i] = g;
    group(g).ops.push_back(i);
  }

  void addCopy(size_t i, int g) {
    if (isProductFamily(group(g).family)) notePlacedInProduct(i, g);
    out_.copied_into[i].push_back(g);
    group(g).copies.push_back(i);
  }

  // Records an operand convert (fitsProduct said it may be placed).
  void notePlacedInProduct(size_t i, int g) {
    for (ir::ValueId value : op(i).results)
      for (size_t user : uses_.users(value))
        if (static_cast<long>(user) == group(g).dot) {
          group(g).operand_converts.push_back(i);
          return;
        }
  }

  // Whether op `i` can be computed in group `g`, which reads it: every other
  // reader is in `g` too, unless `stored` (the return or other groups read it,
  // so `g` must store its results).
  bool canJoin(size_t i, int g, bool stored) {
    DraftGroup& target = group(g);
    // An attention group is complete when formed.
    if (target.family == Family::kAttention) return false;
    // Scan, scatter and sort run one op each; scan and sort take an
    // elementwise prologue (computed at the index they read), never anything
    // the return also needs (their kernels store only the op's results).
    const Family family = ttirFamilyOf(module_, op(i));
    if (family == Family::kScan || family == Family::kScatter || family == Family::kSort)
      return false;
    if (target.family == Family::kScatter) return false;
    // A product never joins a group by this path (placeProduct); an op
    // before it feeds its operands or its epilogue.
    if (isProduct(op(i))) return false;
    if (isProductFamily(target.family)) {
      if (!fitsProduct(i, g)) return false;
      if (!stored) return true;
      // An operand convert is applied to loaded tiles only, never stored.
      for (ir::ValueId value : op(i).results)
        for (size_t user : uses_.users(value))
          if (static_cast<long>(user) == target.dot) return false;
      const ir::Op& root = op(target.root);
      return op(i).results.size() == 1 && root.results.size() == 1 &&
             module_.typeOf(op(i).results[0]).dims ==
                 module_.typeOf(root.results[0]).dims;
    }
    if (target.family == Family::kScan || target.family == Family::kSort)
      return !stored && family == Family::kLoop && isTtirElementwise(op(i).kind);
    // A window op reads its operand at many indices per output: it stays out
    // of reduction groups, and no reduce joins a group holding one.
    if (isWindowOp(op(i)) && target.family == Family::kReduction) return false;
    if (target.family == Family::kReduction)
      return fitsSpace(i, g) && (!stored || storesFit(i, *target.space));
    if (op(i).kind == OpKind::Reduce) {
      for (size_t m : target.ops)
        if (isWindowOp(op(m))) return false;
      std::optional<ReductionSpace> space = reductionSpaceOf(module_, op(i));
      // The loop group's outputs (the root's shape) become outputs of a
      // reduction group, which must be able to store them.
      return space && convertible(g, *space) && edgesInto(i, g, *space) &&
             storesFit(target.root, *space);
    }
    // A loop kernel writes one output shape: a value the return also reads
    // must have the shape of the root's.
    if (!stored) return true;
    const ir::Op& root = op(target.root);
    if (op(i).results.size() != 1 || root.results.size() != 1) return false;
    return module_.typeOf(op(i).results[0]).dims == module_.typeOf(root.results[0]).dims;
  }

  // Whether a reduction kernel of `space` can store the results of op `i`:
  // values of shape K always; values of shape F only when a whole row fits
  // one tile (the emitter then holds full rows), as for broadcasts from K
  // back to F.
  bool storesFit(size_t i, const ReductionSpace& space) const {
    for (ir::ValueId value : op(i).results) {
      const std::vector<int64_t>& dims = module_.typeOf(value).dims;
      if (space.isKept(dims)) continue;
      if (!space.isFull(dims) || space.rowElements() > options_.max_row_elements)
        return false;
    }
    return true;
  }

  bool canCopy(size_t i, int g) {
    if (group(g).family == Family::kAttention) return false;
    if (group(g).family == Family::kReduction) return fitsSpace(i, g);
    if (isProductFamily(group(g).family)) return fitsProduct(i, g);
    return true;
  }

  bool fitsSpace(size_t i, int g) {
    const std::optional<ReductionSpace>& space = group(g).space;
    return space && fitsReductionSpace(module_, *space, op(i)) && edgesInto(i, g, *space);
  }

  // Every read of op `i`'s results inside group `g` shares an index.
  bool edgesInto(size_t i, int g, const ReductionSpace& space) const {
    for (ir::ValueId value : op(i).results)
      for (size_t user : uses_.users(value))
        if (inGroup(user, g) &&
            !reductionEdgeOk(module_, space, value, op(user), options_.max_row_elements))
          return false;
    return true;
  }

  // Whether loop group `g` can become a reduction group of `space`.
  bool convertible(int g, const ReductionSpace& space) const {
    const DraftGroup& target = out_.groups[g];
    for (const std::vector<size_t>* list : {&target.ops, &target.copies}) {
      for (size_t m : *list) {
        if (isSplatConstant(op(m))) continue;
        if (!fitsReductionSpace(module_, space, op(m))) return false;
        for (ir::ValueId value : op(m).operands) {
          const long def = uses_.definingOp(value);
          if (def < 0 || !inGroup(static_cast<size_t>(def), g) ||
              isSplatConstant(op(static_cast<size_t>(def))))
            continue;
          if (!reductionEdgeOk(module_, space, value, op(m), options_.max_row_elements))
            return false;
        }
      }
    }
    return true;
  }

  const ir::Module& module_;
  const ir::Region& region_;
  const UseGraph& uses_;
  const PlanOptions& options_;
  Grouping out_;
  // Per group: the groups reading a value it stores (edges of the group
  // graph), kept as ops are placed.
  std::vector<std::vector<int>> readers_;
};

}  // namespace

Grouping groupOps(const ir::Module& module, const ir::Region& region,
                  const UseGraph& uses, const PlanOptions& options) {
  return Grouper(module, region, uses, options).run();
}

}  // namespace jft::fusion
