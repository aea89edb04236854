// parseLocation (attribute_parser.h): the spellings printLocation and
// printUserFrame write.
#include "ir/attribute_parser.h"

namespace jft::ir {
namespace {

constexpr int kMaxLocationDepth = 64;

bool parseLocationAt(TextCursor& cursor, LocationTable& table, LocId& out, int depth) {
  if (depth > kMaxLocationDepth) return cursor.fail("a location nested less deeply");
  if (cursor.consumeKeyword("unknown")) {
    out = kUnknownLoc;
    return true;
  }
  Location loc;
  if (cursor.consume("callsite(")) {
    loc.kind = Location::Kind::CallSite;
    LocId callee, caller;
    if (!parseLocationAt(cursor, table, callee, depth + 1) || !cursor.expect("at") ||
        !parseLocationAt(cursor, table, caller, depth + 1) || !cursor.expect(")"))
      return false;
    loc.children = {callee, caller};
  } else if (cursor.consume("fused[")) {
    loc.kind = Location::Kind::Fused;
    if (!cursor.consume("]")) {
      do {
        LocId child;
        if (!parseLocationAt(cursor, table, child, depth + 1)) return false;
        loc.children.push_back(child);
      } while (cursor.consume(","));
      if (!cursor.expect("]")) return false;
    }
  } else {
    if (cursor.peek() != '"') return cursor.fail("a location");
    if (!cursor.quoted(loc.text)) return false;
    if (cursor.consume(":")) {
      loc.kind = Location::Kind::File;
      if (!cursor.integer(loc.line) || !cursor.expect(":") || !cursor.integer(loc.col))
        return false;
      if (cursor.consumeKeyword("to")) {
        loc.end_line = loc.line;
        if (!cursor.consume(":")) {
          if (!cursor.integer(loc.end_line) || !cursor.expect(":")) return false;
        }
        if (!cursor.integer(loc.end_col)) return false;
      }
    } else {
      loc.kind = Location::Kind::Name;
      if (cursor.consume("(")) {
        LocId child;
        if (!parseLocationAt(cursor, table, child, depth + 1) || !cursor.expect(")"))
          return false;
        loc.children.push_back(child);
      }
    }
  }
  out = table.add(std::move(loc));
  return true;
}

}  // namespace

bool parseLocation(TextCursor& cursor, LocationTable& table, LocId& out) {
  return parseLocationAt(cursor, table, out, 0);
}

}  // namespace jft::ir
