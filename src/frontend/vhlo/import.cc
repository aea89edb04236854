// Placeholder until the importer lands; keeps the library non-empty.
namespace jft::frontend {}
