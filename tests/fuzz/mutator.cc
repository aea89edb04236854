#include "mutator.h"

#include <algorithm>

namespace jft::fuzz {
namespace {

constexpr uint8_t kBoundaryBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, 0xcb, 0x02};
constexpr uint64_t kHugeValues[] = {0xffffffffffffffffull,
                                    0x8000000000000000ull,
                                    0x00000000ffffffffull,
                                    0x0000000080000000ull,
                                    0x00000000fffffffeull,
                                    0x0100000000000000ull,
                                    1ull << 40};

void insertAt(Bytes& bytes, size_t at, const Bytes& more) {
  bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(std::min(at, bytes.size())),
               more.begin(), more.end());
}

// A huge value as an MLIR prefix varint or a protobuf varint (both appear in
// our inputs: whichever is wrong for the spot is just more noise).
Bytes hugeVarInt(Random& random) {
  uint64_t value = kHugeValues[random.below(std::size(kHugeValues))];
  if (random.oneIn(2)) return encodeVarInt(value);
  Bytes out;
  while (value >= 0x80) {
    out.push_back(uint8_t(value | 0x80));
    value >>= 7;
  }
  out.push_back(uint8_t(value));
  return out;
}

// One mutation half the time, up to four: a single change most often gets
// past the checks before the one it breaks, so it reaches deeper.
size_t stackDepth(Random& random) {
  size_t count = 1;
  while (count < 4 && random.oneIn(2)) ++count;
  return count;
}

}  // namespace

uint64_t Random::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void mutateBytes(Bytes& bytes, Random& random, std::string& how) {
  size_t at = random.below(bytes.size() + 1);
  switch (random.below(8)) {
    case 0:
      if (bytes.empty()) break;
      at = random.below(bytes.size());
      bytes[at] ^= uint8_t(1u << random.below(8));
      how += " flip@" + std::to_string(at);
      break;
    case 1:
      if (bytes.empty()) break;
      at = random.below(bytes.size());
      bytes[at] = kBoundaryBytes[random.below(std::size(kBoundaryBytes))];
      how += " set@" + std::to_string(at);
      break;
    case 2:
      if (bytes.empty()) break;
      at = random.below(bytes.size());
      bytes[at] = uint8_t(random.next());
      how += " byte@" + std::to_string(at);
      break;
    case 3: {  // overwrite with a huge varint
      Bytes v = hugeVarInt(random);
      for (size_t i = 0; i < v.size() && at + i < bytes.size(); ++i) bytes[at + i] = v[i];
      how += " hugevar@" + std::to_string(at);
      break;
    }
    case 4:
      insertAt(bytes, at, hugeVarInt(random));
      how += " inshuge@" + std::to_string(at);
      break;
    case 5:
      bytes.resize(at);
      how += " cut@" + std::to_string(at);
      break;
    case 6: {  // delete a span
      size_t n =
          std::min(bytes.size() - std::min(at, bytes.size()), 1 + random.below(16));
      bytes.erase(bytes.begin() + static_cast<ptrdiff_t>(std::min(at, bytes.size())),
                  bytes.begin() + static_cast<ptrdiff_t>(std::min(at + n, bytes.size())));
      how += " del@" + std::to_string(at);
      break;
    }
    default: {  // duplicate a span
      if (bytes.empty()) break;
      size_t from = random.below(bytes.size());
      size_t n = std::min(bytes.size() - from, 1 + random.below(32));
      Bytes span(bytes.begin() + static_cast<ptrdiff_t>(from),
                 bytes.begin() + static_cast<ptrdiff_t>(from + n));
      insertAt(bytes, at, span);
      how += " dup@" + std::to_string(at);
      break;
    }
  }
}

Mutant mutateBytecode(const Bytes& bytes, const std::vector<Bytes>& donors,
                      Random& random) {
  Mutant mutant{bytes, ""};
  size_t count = stackDepth(random);
  for (size_t m = 0; m < count; ++m) {
    std::optional<SectionedFile> file = splitSections(mutant.bytes);
    // Now and then mutate the raw container too (lengths, ids, padding, header).
    if (!file || file->sections.empty() || random.oneIn(5)) {
      mutateBytes(mutant.bytes, random, mutant.how);
      continue;
    }
    std::vector<Section>& sections = file->sections;
    size_t pick = random.below(sections.size());
    switch (random.below(8)) {
      case 0: {  // splice: the same section of another program
        const Bytes& donor = donors.empty() ? bytes : donors[random.below(donors.size())];
        std::optional<SectionedFile> other = splitSections(donor);
        if (!other) break;
        for (const Section& s : other->sections) {
          if (s.id == sections[pick].id) sections[pick].payload = s.payload;
        }
        mutant.how += " splice#" + std::to_string(sections[pick].id);
        break;
      }
      case 1:
        sections.erase(sections.begin() + static_cast<ptrdiff_t>(pick));
        mutant.how += " drop#" + std::to_string(pick);
        break;
      case 2:
        sections.insert(
            sections.begin() + static_cast<ptrdiff_t>(random.below(sections.size())),
            sections[pick]);
        mutant.how += " twice#" + std::to_string(pick);
        break;
      case 3:
        std::swap(sections[pick], sections[random.below(sections.size())]);
        mutant.how += " swap#" + std::to_string(pick);
        break;
      default:  // mutate inside the section; joinSections re-lengths it
        mutant.how += " in#" + std::to_string(sections[pick].id) + ":";
        mutateBytes(sections[pick].payload, random, mutant.how);
        break;
    }
    mutant.bytes = joinSections(*file);
  }
  return mutant;
}

Mutant mutatePlain(const Bytes& bytes, const std::vector<Bytes>& donors, Random& random) {
  Mutant mutant{bytes, ""};
  size_t count = stackDepth(random);
  for (size_t m = 0; m < count; ++m) {
    if (!donors.empty() && random.oneIn(8)) {  // append the tail of another input
      const Bytes& donor = donors[random.below(donors.size())];
      size_t from = random.below(donor.size() + 1);
      mutant.bytes.insert(mutant.bytes.end(),
                          donor.begin() + static_cast<ptrdiff_t>(from), donor.end());
      mutant.how += " tail";
      continue;
    }
    mutateBytes(mutant.bytes, random, mutant.how);
  }
  return mutant;
}

}  // namespace jft::fuzz
