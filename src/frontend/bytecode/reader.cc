#include "frontend/bytecode/reader.h"

#include "frontend/bytecode/attr_type_table.h"
#include "frontend/bytecode/ir_reader.h"
#include "frontend/bytecode/properties.h"
#include "frontend/bytecode/resources.h"
#include "frontend/bytecode/tables.h"

namespace jft::frontend {

StatusOr<MTree> readBytecode(const uint8_t* data, size_t size) {
  using namespace bytecode;
  if (!data && size) return invalidArgument("null bytecode buffer");
  JFT_ASSIGN_OR_RETURN(FileHeader header, readFileHeader(data, size));
  MTree tree;
  tree.version = header.version;
  tree.producer = header.producer;

  StringTable strings;
  JFT_RETURN_IF_ERROR(strings.init(*header.sections[kStringSection]));
  JFT_ASSIGN_OR_RETURN(
      DialectTable dialects,
      readDialectSection(*header.sections[kDialectSection], header.version, strings));
  tree.dialects = dialects.names;
  PropertiesTable properties;
  JFT_RETURN_IF_ERROR(properties.init(header.sections[kPropertiesSection]));
  ResourceTable resources;
  JFT_RETURN_IF_ERROR(resources.init(header.sections[kResourceSection],
                                     header.sections[kResourceOffsetSection], strings,
                                     dialects));
  AttrTypeTable attrs(strings, dialects, resources, header.version);
  JFT_RETURN_IF_ERROR(attrs.init(*header.sections[kAttrTypeSection],
                                 *header.sections[kAttrTypeOffsetSection]));
  JFT_RETURN_IF_ERROR(readIrSection(*header.sections[kIrSection], header.version,
                                    dialects, attrs, properties, tree));
  return tree;
}

}  // namespace jft::frontend
