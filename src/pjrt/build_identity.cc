// The build identity: the linker's GNU build id of the binary that holds this
// code (read from its loaded notes), else a hash of the file.
#include "pjrt/build_identity.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "compiler/fingerprint.h"
#include "support/atomic_file.h"
#include "support/byte_stream.h"

#ifndef JFT_PROJECT_VERSION
#define JFT_PROJECT_VERSION "unknown"
#endif

namespace jft::pjrt {
namespace {

struct Search {
  uintptr_t address = 0;
  std::string id;  // hex; empty when the object has no build id note
  bool found = false;
};

size_t align4(size_t n) {
  return (n + 3) & ~size_t{3};
}

std::string hex(const unsigned char* bytes, size_t size) {
  std::string out;
  char digit[3];
  for (size_t i = 0; i < size; ++i) {
    std::snprintf(digit, sizeof(digit), "%02x", bytes[i]);
    out += digit;
  }
  return out;
}

// NT_GNU_BUILD_ID among a PT_NOTE segment's notes.
std::string buildIdIn(const unsigned char* notes, size_t size) {
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) header;
    std::memcpy(&header, notes + at, sizeof(header));
    const size_t name = at + sizeof(header);
    const size_t desc = name + align4(header.n_namesz);
    if (desc + header.n_descsz > size) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
        std::memcmp(notes + name, "GNU", 4) == 0)
      return hex(notes + desc, header.n_descsz);
    at = desc + align4(header.n_descsz);
  }
  return "";
}

int searchObject(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum && !holds; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    holds = segment.p_type == PT_LOAD && search->address >= start &&
            search->address < start + segment.p_memsz;
  }
  if (!holds) return 0;
  search->found = true;
  for (int i = 0; i < info->dlpi_phnum && search->id.empty(); ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    search->id = buildIdIn(
        reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr),
        segment.p_memsz);
  }
  return 1;
}

std::string fileHash() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&fileHash), &where) == 0 ||
      where.dli_fname == nullptr)
    return "unknown";
  auto bytes = readWholeFile(where.dli_fname);
  if (!bytes.isOk()) return "unknown";
  char digits[17];
  std::snprintf(digits, sizeof(digits), "%016llx",
                static_cast<unsigned long long>(fnv1a64(*bytes)));
  return std::string("file ") + digits;
}

std::string binaryIdentity() {
  Search search;
  search.address = reinterpret_cast<uintptr_t>(&binaryIdentity);
  dl_iterate_phdr(searchObject, &search);
  if (!search.id.empty()) return "build-id " + search.id;
  return fileHash();
}

}  // namespace

const std::string& buildIdentity() {
  static const std::string identity = "jax-flagtree " JFT_PROJECT_VERSION "; " +
                                      std::string(compiler::kPipelineVersion) +
                                      "; binary " + binaryIdentity();
  return identity;
}

}  // namespace jft::pjrt
